/**
 * @module auth/social/native
 * `POST <authRoute>/social/@provider` (`id_token`, `nonce`) for native apps that ran the
 * provider's own SDK: OIDC providers only (others 404). The ID token is verified by openid-client
 * as an `id_token` authorization response (the issuer's JWKS, asymmetric algorithms only, `iss`,
 * `aud`, `exp`, `iat`, `nonce`), with `aud` = `clientId` or one of `audiences` (and `azp`, when
 * present, one of them); the `nonce` claim must equal the given `nonce` or its SHA-256 hex. Each
 * ID token is accepted once (its SHA-256 kept until it expires); every request takes an `ip`
 * slot first. Answers: the token response (amr `["social"]`), 401 `E_MFA_REQUIRED` with an
 * `mfa_token` for a user with a second factor, 409 `E_SOCIAL_LINK_REQUIRED` when an account has
 * the address but not this identity, else 401 `E_INVALID_CREDENTIALS`.
 */
import { createHash } from 'node:crypto'
import type * as client from 'openid-client'
import { openid } from './openid.js'
import type { HttpContext } from '../../http/context.js'
import { NotFoundError, TooManyRequestsError, ValidationError } from '../../http/errors.js'
import type { Knex } from 'knex'
import { eventBase } from '../events.js'
import { InvalidCredentialsError } from '../errors.js'
import { normalizeEmail } from '../email.js'
import { clientKey } from '../throttle/client-key.js'
import type { SocialProvider } from './config.js'
import { profileFromClaims, type SocialDriver } from './drivers.js'
import { SocialLinkRequiredError } from './errors.js'
import { finishSocialApiLogin } from './login.js'
import type { Social } from './social.js'
import { PENDING_TABLE, isUniqueViolation } from './store.js'

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')
const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/

/** One Configuration per accepted audience (the issuer's metadata, `response_type=id_token`). */
const perAudience = new WeakMap<SocialDriver, Map<string, client.Configuration>>()
async function configurationFor(driver: SocialDriver, audience: string): Promise<client.Configuration> {
  let map = perAudience.get(driver)
  if (!map) perAudience.set(driver, (map = new Map()))
  let config = map.get(audience)
  if (!config) {
    const discovered = await driver.configuration()
    const client = await openid()
    config = new client.Configuration(discovered.serverMetadata(), audience)
    client.useIdTokenResponseType(config)
    if (!driver.provider.issuer?.startsWith('https:')) client.allowInsecureRequests(config)
    map.set(audience, config)
  }
  return config
}

/** The verified claims of `idToken`, or null (any reason: logged by the caller). */
export async function verifyIdToken(driver: SocialDriver, idToken: string, nonce: string): Promise<Record<string, unknown> | null> {
  if (!JWT.test(idToken) || idToken.length > 16_384) return null
  let claimed: Record<string, unknown>
  try {
    claimed = JSON.parse(Buffer.from(idToken.split('.')[1]!, 'base64url').toString('utf8')) as Record<string, unknown>
  } catch {
    return null
  }
  const p = driver.provider
  const allowed = [p.clientId, ...p.audiences]
  const aud = Array.isArray(claimed.aud) ? claimed.aud : [claimed.aud]
  const audience = allowed.find((a) => aud.includes(a))
  if (!audience) return null
  // Which of the two accepted nonce forms the token carries (the check itself is openid-client's).
  const expected = [nonce, sha256(nonce)].find((n) => n === claimed.nonce)
  if (!expected) return null
  try {
    const config = await configurationFor(driver, audience)
    const client = await openid()
    const claims = (await client.implicitAuthentication(config, new URL(`${driver.redirectUri}#id_token=${idToken}`), expected)) as Record<string, unknown>
    if (claims.azp !== undefined && !allowed.includes(String(claims.azp))) return null
    return claims
  } catch {
    return null
  }
}

/** Keeps the token's hash until it expires: false when it was used before. */
async function useOnce(db: Knex, provider: SocialProvider, idToken: string, exp: unknown): Promise<boolean> {
  const now = new Date()
  const expires = typeof exp === 'number' ? new Date(exp * 1000) : new Date(now.getTime() + 3_600_000)
  try {
    await db(PENDING_TABLE).insert({ kind: 'id_token', token_hash: sha256(`id_token:${idToken}`), provider: provider.name, intent: 'native', data: '{}', created_at: now, expires_at: expires })
    return true
  } catch (error) {
    if (isUniqueViolation(error)) return false
    throw error
  }
}

function field(ctx: HttpContext, name: string): string {
  const value = ctx.request.post(name)
  if (typeof value !== 'string' || value === '') throw new ValidationError({ [name]: [`The ${name} field is required.`] })
  return value
}

/** POST <authRoute>/social/@provider */
export async function signInWithIdToken(ctx: HttpContext): Promise<unknown> {
  const service = ctx.app.get<Social>('auth.social')
  const provider = service?.provider(ctx.params.provider)
  if (!service || !provider) throw new NotFoundError()
  const driver = service.driver(provider)
  if (!driver.oidc) throw new NotFoundError()
  const idToken = field(ctx, 'id_token')
  const nonce = field(ctx, 'nonce')
  const manager = service.manager
  const ip = manager.budgets.ip
  const wait = await ip.take(ip.key(clientKey(ctx.request.ip())))
  if (wait !== null) throw new TooManyRequestsError(wait)
  const refuse = (reason: string) => {
    ctx.app.log.info('auth.social_failed', { provider: provider.name, reason, ip: ctx.request.ip(), request_id: ctx.request.id })
    manager.events.emit('auth:login_failed', { ...eventBase(ctx, 'jwt', null), method: 'social' } as never)
    return new InvalidCredentialsError('The sign-in could not be completed.')
  }
  const claims = await verifyIdToken(driver, idToken, nonce)
  if (!claims) throw refuse('invalid ID token')
  if (!(await useOnce(manager.db(), provider, idToken, claims.exp))) throw refuse('ID token used before')
  const profile = { ...profileFromClaims(provider, claims), accessToken: null, refreshToken: null }
  let outcome = await service.loginOf(provider, profile)
  if (!outcome) {
    const address = profile.email ? normalizeEmail(profile.email) : null
    if (address && (await service.findUser(address))) throw new SocialLinkRequiredError()
    if (!address || !profile.emailVerified || !service.registers()) throw refuse('no linked identity and no verified address to register')
    const budget = manager.budgets.register
    const slot = await budget.take(budget.key(clientKey(ctx.request.ip())))
    if (slot !== null) throw new TooManyRequestsError(slot)
    outcome = await service.createAccount(ctx, provider, { ...profile, email: address })
  }
  if (outcome.kind !== 'login') throw new SocialLinkRequiredError()
  // A user with a second factor: 401 E_MFA_REQUIRED with an mfa_token (answered on the API's second step).
  return finishSocialApiLogin(ctx, outcome.user, provider.name)
}
