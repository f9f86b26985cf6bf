import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { startGithubPeer, type GithubPeer } from '../../../test/helpers/github-peer.js'
import { resolveSocialConfig } from './config.js'
import { SocialDriver, SocialProtocolError } from './drivers.js'

const REDIRECT = 'http://app.example.test/auth/github/callback'

describe('the github driver against a GitHub-shaped server', () => {
  let gh: GithubPeer
  let driver: SocialDriver

  before(async () => {
    gh = await startGithubPeer({ clientId: 'gh-id', clientSecret: 'gh-secret' })
    const provider = resolveSocialConfig({ providers: { github: { clientId: 'gh-id', clientSecret: 'gh-secret', url: gh.url, apiUrl: `${gh.url}/api/v3` } } }, { production: true }).providers.get('github')!
    driver = new SocialDriver(provider, REDIRECT)
  })
  after(() => gh.close())

  /** The authorization round trip: the callback's parameters. */
  async function roundTrip(user: number) {
    gh.next = user
    const secrets = await SocialDriver.secrets(false)
    assert.equal(secrets.nonce, null)
    const authorize = new URL(await driver.authorizationUrl(secrets))
    assert.equal(authorize.searchParams.get('code_challenge_method'), 'S256')
    assert.equal(authorize.searchParams.get('scope'), 'read:user user:email')
    const r = await fetch(authorize, { redirect: 'manual' })
    return { params: new URL(r.headers.get('location')!).searchParams, secrets }
  }

  it('reads the numeric id as the subject and the verified primary address', async () => {
    gh.users.set(42, { id: 42, login: 'octo', name: 'Octo Cat', emails: [{ email: 'other@x.test', primary: false, verified: true }, { email: 'octo@x.test', primary: true, verified: true }] })
    const { params, secrets } = await roundTrip(42)
    const profile = await driver.finish(params, secrets)
    assert.equal(profile.subject, '42')
    assert.equal(profile.email, 'octo@x.test')
    assert.equal(profile.emailVerified, true)
    assert.equal(profile.name, 'Octo Cat')
  })

  it('an unverified primary address is no address; a wrong state or verifier fails', async () => {
    gh.users.set(7, { id: 7, login: 'seven', name: null, emails: [{ email: 'seven@x.test', primary: true, verified: false }, { email: 'alt@x.test', primary: false, verified: true }] })
    const { params, secrets } = await roundTrip(7)
    const profile = await driver.finish(params, secrets)
    assert.equal(profile.email, null)
    assert.equal(profile.emailVerified, false)
    assert.equal(profile.name, 'seven', 'the login when there is no name')
    const other = await roundTrip(7)
    await assert.rejects(driver.finish(other.params, { ...other.secrets, state: 'another-state' }), SocialProtocolError)
    const third = await roundTrip(7)
    await assert.rejects(driver.finish(third.params, { ...third.secrets, verifier: (await SocialDriver.secrets(false)).verifier }), SocialProtocolError)
  })
})
