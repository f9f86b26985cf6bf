import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { isLoopback, resolveSocialConfig } from './config.js'
import { addProvider, providerLine } from './add-command.js'
import { profileFromClaims } from './drivers.js'

const dev = { production: false }
const prod = { production: true }

describe('social config', () => {
  it('leaves out a provider whose clientId is unset, and reads presets by name', () => {
    const c = resolveSocialConfig({ providers: { github: { clientId: undefined }, google: { clientId: 'g', clientSecret: 's' } } }, dev)
    assert.deepEqual([...c.providers.keys()], ['google'])
    const google = c.providers.get('google')!
    assert.equal(google.driver, 'google')
    assert.equal(google.issuer, 'https://accounts.google.com')
    assert.deepEqual(google.scopes, ['openid', 'email', 'profile'])
    assert.equal(c.stateMinutes, 10)
    assert.equal(c.linkMinutes, 10)
  })

  it('accepts http only on loopback, or with allowHttp outside production', () => {
    for (const issuer of ['http://127.0.0.1:9000', 'http://localhost:9000', 'http://[::1]:9000']) {
      assert.ok(resolveSocialConfig({ providers: { acme: { driver: 'oidc', issuer, clientId: 'x' } } }, prod).providers.get('acme'))
    }
    assert.throws(() => resolveSocialConfig({ providers: { acme: { driver: 'oidc', issuer: 'http://id.acme.test', clientId: 'x' } } }, dev), /provider "acme" uses http:/)
    assert.ok(resolveSocialConfig({ providers: { acme: { driver: 'oidc', issuer: 'http://id.acme.test', clientId: 'x', allowHttp: true } } }, dev).providers.get('acme'))
    assert.throws(() => resolveSocialConfig({ providers: { acme: { driver: 'oidc', issuer: 'http://id.acme.test', clientId: 'x', allowHttp: true } } }, prod), /SOCIAL\.providers\.acme\.issuer/)
    assert.equal(isLoopback('127.9.9.9'), true)
    assert.equal(isLoopback('128.0.0.1'), false)
  })

  it('names the key of every mistake', () => {
    assert.throws(() => resolveSocialConfig({ providers: { acme: { clientId: 'x' } } }, dev), /SOCIAL\.providers\.acme\.driver/)
    assert.throws(() => resolveSocialConfig({ providers: { acme: { driver: 'oidc', clientId: 'x' } } }, dev), /acme\.issuer is required/)
    assert.throws(() => resolveSocialConfig({ providers: { box: { driver: 'oauth2', clientId: 'x', authorizeUrl: 'https://b/a', tokenUrl: 'https://b/t', userInfoUrl: 'https://b/u' } } }, dev), /mapProfile is required/)
    assert.throws(() => resolveSocialConfig({ providers: { microsoft: { clientId: 'x' } } }, dev), /microsoft\.tenant is required/)
    assert.throws(() => resolveSocialConfig({ providers: {}, state_minutes: 0 }, dev), /state_minutes/)
    assert.throws(() => resolveSocialConfig({ providers: { google: { clientId: 'x', trusted: 'yes' } } }, dev), /google\.trusted must be true or false/)
  })

  it('github: url and apiUrl, for GitHub Enterprise too', () => {
    const gh = resolveSocialConfig({ providers: { github: { clientId: 'x' } } }, dev).providers.get('github')!
    assert.equal(gh.url, 'https://github.com')
    assert.equal(gh.apiUrl, 'https://api.github.com')
    const ghe = resolveSocialConfig({ providers: { github: { clientId: 'x', url: 'https://git.corp.test' } } }, dev).providers.get('github')!
    assert.equal(ghe.apiUrl, 'https://git.corp.test/api/v3')
  })

  it('verified addresses: email_verified true only, never for microsoft', () => {
    const c = resolveSocialConfig({ providers: { acme: { driver: 'oidc', issuer: 'https://id.acme.test', clientId: 'x' }, microsoft: { clientId: 'y', tenant: 't' } } }, dev)
    assert.equal(profileFromClaims(c.providers.get('acme')!, { sub: '1', email: 'a@b.test', email_verified: true }).emailVerified, true)
    assert.equal(profileFromClaims(c.providers.get('acme')!, { sub: '1', email: 'a@b.test' }).emailVerified, false)
    assert.equal(profileFromClaims(c.providers.get('microsoft')!, { sub: '1', email: 'a@b.test', email_verified: true }).emailVerified, false)
  })
})

describe('craft social:add', () => {
  const stub = "export const SOCIAL = {\n  providers: {\n    github: { clientId: env('GITHUB_CLIENT_ID') },\n  },\n}\n"
  it('writes a preset without an issuer, and an OIDC issuer as the env default', () => {
    assert.equal(providerLine('google', undefined), "    google: { clientId: env('GOOGLE_CLIENT_ID'), clientSecret: env('GOOGLE_CLIENT_SECRET') },")
    const out = addProvider(stub, 'acme', 'https://id.acme.test')
    assert.match(out, /acme: \{ driver: 'oidc', issuer: env\('ACME_ISSUER', "https:\/\/id\.acme\.test"\), clientId: env\('ACME_CLIENT_ID'\)/)
    assert.throws(() => addProvider(stub, 'github', undefined), /already has a provider named "github"/)
  })
})
