import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Encrypter } from '../../support/encrypter.js'
import type { Application } from '../../foundation/application.js'
import type { AuthManager } from '../auth-manager.js'
import { resolveSocialConfig } from './config.js'
import { Social } from './social.js'

const KEY = 'base64:' + Buffer.alloc(32, 7).toString('base64')

function service(storeTokens: boolean): { social: Social; encrypter: Encrypter } {
  const encrypter = new Encrypter(KEY)
  const app = { make: () => encrypter, config: () => undefined } as unknown as Application
  const config = resolveSocialConfig({ providers: { acme: { driver: 'oidc', issuer: 'https://id.acme.test', clientId: 'x', store_tokens: storeTokens } } }, { production: true })
  return { social: new Social(app, {} as AuthManager, config), encrypter }
}

const profile = { subject: 's', email: null, emailVerified: false, name: null, accessToken: 'at-secret', refreshToken: 'rt-secret' }

describe('provider tokens', () => {
  it('are kept only with store_tokens, encrypted with APP_KEY for their column', () => {
    const off = service(false)
    assert.equal(off.social.tokens(off.social.provider('acme')!, profile), null)
    const on = service(true)
    const sealed = on.social.tokens(on.social.provider('acme')!, profile)!
    assert.ok(sealed.access && !sealed.access.includes('at-secret'))
    assert.equal(on.encrypter.decrypt(sealed.access, 'social_identities.access_token')?.value, 'at-secret')
    assert.equal(on.encrypter.decrypt(sealed.refresh, 'social_identities.refresh_token')?.value, 'rt-secret')
    assert.equal(on.encrypter.decrypt(sealed.access, 'social_identities.refresh_token'), undefined, 'bound to its column')
  })

  it('serves only providers with a clientId; the redirect URI is <APP_URL>/auth/<name>/callback', () => {
    const { social } = service(false)
    assert.equal(social.provider('github'), null)
    assert.equal(social.provider(undefined), null)
    assert.match(social.driver(social.provider('acme')!).redirectUri, /\/auth\/acme\/callback$/)
  })
})
