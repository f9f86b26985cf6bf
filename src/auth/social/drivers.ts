/**
 * @module auth/social/drivers
 * The protocol side of each provider, all of it through `openid-client` (OpenID-certified):
 * - OIDC drivers (`oidc` and the presets `google`, `microsoft`, `apple`, `gitlab`): discovery of
 *   the issuer (kept once it succeeded), PKCE S256, `state`, `nonce`, the ID token verified
 *   against the issuer's JWKS (asymmetric algorithms only; `iss`, `aud`, `exp`, `iat`, `nonce`;
 *   keys fetched again for an unknown `kid`), the RFC 9207 `iss` response parameter when the
 *   issuer advertises it; `email`, `email_verified` and `name` from the ID token, else from
 *   UserInfo (whose `sub` must match).
 * - `github`, `discord`, `oauth2`: the code grant with PKCE and `state`, then the provider's user
 *   API (GitHub: `/user` and the verified primary address of `/user/emails`).
 * What counts as verified: `email_verified: true` (OIDC), never for `microsoft`; GitHub's primary
 * verified address; Discord's `verified`; `oauth2`: what `mapProfile` says.
 */
import { createPrivateKey, sign } from 'node:crypto'
import type * as client from 'openid-client'
import { openid } from './openid.js'
import { OIDC_DRIVERS, type SocialProvider } from './config.js'

/** Who the provider says signed in. */
export interface SocialProfile {
  /** The provider's stable account id (`sub`, GitHub's numeric id as text). */
  subject: string
  email: string | null
  /** The provider asserts it verified `email`. */
  emailVerified: boolean
  name: string | null
  accessToken: string | null
  refreshToken: string | null
}

/** The secrets of one redirect, kept server-side until the callback. */
export interface RedirectSecrets {
  state: string
  verifier: string
  nonce: string | null
}

/** Extra authorization parameters (a fresh round trip asks `prompt=login`, `max_age=0`). */
export type AuthorizationExtras = Record<string, string>

/** Thrown for any failure of the protocol: the caller answers with one message. */
export class SocialProtocolError extends Error {
  override readonly name = 'SocialProtocolError'
}

const secure = (url: string | null) => url !== null && url.startsWith('https:')

export class SocialDriver {
  #config: Promise<client.Configuration> | null = null
  #metadata: Partial<client.ClientMetadata> = {}
  #auth: client.ClientAuth | null = null

  constructor(
    readonly provider: SocialProvider,
    readonly redirectUri: string,
  ) {}

  get oidc(): boolean {
    return OIDC_DRIVERS.has(this.provider.driver)
  }

  /** The issuer's metadata and client (discovered once; a failed discovery is tried again next time). */
  configuration(): Promise<client.Configuration> {
    this.#config ??= this.#build()
    this.#config.catch(() => {
      this.#config = null
    })
    return this.#config
  }

  async #build(): Promise<client.Configuration> {
    const client = await openid()
    const p = this.provider
    const metadata: Partial<client.ClientMetadata> = { client_secret: this.#clientSecret() ?? undefined }
    if (p.driver === 'apple') metadata.response_mode = 'form_post'
    const auth = metadata.client_secret ? client.ClientSecretPost(metadata.client_secret) : client.None()
    this.#metadata = metadata
    this.#auth = auth
    if (this.oidc) {
      // openid-client skips the ID token's signature when it comes from the token endpoint
      // (TLS vouches for the issuer); it is checked against the JWKS all the same, so a token
      // endpoint that is spoofed, proxied or plain http (loopback) cannot assert a subject.
      const execute = [client.enableNonRepudiationChecks]
      if (!secure(p.issuer)) execute.push(client.allowInsecureRequests)
      return client.discovery(new URL(p.issuer!), p.clientId, metadata, auth, { execute })
    }
    const endpoints =
      p.driver === 'github'
        ? { issuer: p.url!, authorization_endpoint: `${p.url}/login/oauth/authorize`, token_endpoint: `${p.url}/login/oauth/access_token` }
        : p.driver === 'discord'
          ? { issuer: 'https://discord.com', authorization_endpoint: 'https://discord.com/oauth2/authorize', token_endpoint: 'https://discord.com/api/oauth2/token' }
          : { issuer: new URL(p.authorizeUrl!).origin, authorization_endpoint: p.authorizeUrl!, token_endpoint: p.tokenUrl! }
    const config = new client.Configuration(endpoints, p.clientId, metadata, auth)
    if ([p.url, p.apiUrl, p.authorizeUrl, p.tokenUrl, p.userInfoUrl].some((u) => u !== null && !secure(u))) client.allowInsecureRequests(config)
    return config
  }

  /** Apple's client secret: an ES256 JWT signed with the team's key, good for 5 minutes. */
  #clientSecret(): string | null {
    const p = this.provider
    if (p.driver !== 'apple' || p.clientSecret || !p.teamId || !p.keyId || !p.privateKey) return p.clientSecret
    const now = Math.floor(Date.now() / 1000)
    const part = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url')
    const input = `${part({ alg: 'ES256', kid: p.keyId })}.${part({ iss: p.teamId, iat: now, exp: now + 300, aud: 'https://appleid.apple.com', sub: p.clientId })}`
    const signature = sign('sha256', Buffer.from(input), { key: createPrivateKey(p.privateKey.replace(/\\n/g, '\n')), dsaEncoding: 'ieee-p1363' })
    return `${input}.${signature.toString('base64url')}`
  }

  /** New secrets for a redirect. */
  static async secrets(oidc: boolean): Promise<RedirectSecrets> {
    const client = await openid()
    return { state: client.randomState(), verifier: client.randomPKCECodeVerifier(), nonce: oidc ? client.randomNonce() : null }
  }

  /** The provider's authorization URL for these secrets. */
  async authorizationUrl(secrets: RedirectSecrets, extras: AuthorizationExtras = {}): Promise<string> {
    try {
      const config = await this.configuration()
      const client = await openid()
      const params: Record<string, string> = {
        redirect_uri: this.redirectUri,
        scope: this.provider.scopes.join(' '),
        state: secrets.state,
        code_challenge: await client.calculatePKCECodeChallenge(secrets.verifier),
        code_challenge_method: 'S256',
        ...extras,
      }
      if (secrets.nonce) params.nonce = secrets.nonce
      if (this.provider.driver === 'apple') params.response_mode = 'form_post'
      return client.buildAuthorizationUrl(config, params).href
    } catch (error) {
      throw new SocialProtocolError('the provider could not be reached', { cause: error })
    }
  }

  /**
   * Checks the authorization response (`params`: the callback's query, or Apple's form) against
   * the secrets, exchanges the code and reads the profile. Any failure is a SocialProtocolError.
   */
  async finish(params: URLSearchParams, secrets: RedirectSecrets, checks: { maxAge?: number } = {}): Promise<SocialProfile> {
    try {
      const shared = await this.configuration()
      const client = await openid()
      const config = this.oidc ? this.#exchangeConfiguration(client, shared) : shared
      const current = new URL(this.redirectUri)
      for (const [k, v] of params) current.searchParams.append(k, v)
      const tokens = await client.authorizationCodeGrant(config, current, {
        pkceCodeVerifier: secrets.verifier,
        expectedState: secrets.state,
        ...(this.oidc ? { expectedNonce: secrets.nonce ?? undefined, idTokenExpected: true, maxAge: checks.maxAge } : {}),
      })
      const keys = this.oidc ? client.getJwksCache(config) : undefined
      if (keys) client.setJwksCache(shared, keys)
      const profile = this.oidc ? await this.#oidcProfile(config, tokens) : await this.#apiProfile(config, tokens.access_token)
      return { ...profile, accessToken: tokens.access_token ?? null, refreshToken: tokens.refresh_token ?? null }
    } catch (error) {
      if (error instanceof SocialProtocolError) throw error
      throw new SocialProtocolError(error instanceof Error ? error.message : String(error), { cause: error })
    }
  }

  /**
   * The configuration of one code exchange: the issuer's keys as last fetched (kept 5 minutes),
   * fetched again when the token endpoint's ID token names a `kid` they do not have (a key
   * rotation), which openid-client alone would do only once its copy is a minute old.
   */
  #exchangeConfiguration(client: typeof import('openid-client'), shared: client.Configuration): client.Configuration {
    const config = new client.Configuration(shared.serverMetadata(), this.provider.clientId, this.#metadata, this.#auth ?? client.None())
    client.enableNonRepudiationChecks(config)
    if (!secure(this.provider.issuer)) client.allowInsecureRequests(config)
    const cached = client.getJwksCache(shared)
    if (!cached) return config
    client.setJwksCache(config, cached)
    const tokenEndpoint = config.serverMetadata().token_endpoint
    config[client.customFetch] = async (url, options) => {
      const response = await fetch(url, options as RequestInit)
      if (url === tokenEndpoint && response.ok) {
        const kid = idTokenKid(await response.clone().json().catch(() => null))
        const known = (cached.jwks as { keys?: { kid?: unknown }[] }).keys ?? []
        if (kid !== null && !known.some((k) => k.kid === kid)) client.setJwksCache(config, { jwks: { keys: [] }, uat: 0 })
      }
      return response
    }
    return config
  }

  async #oidcProfile(config: client.Configuration, tokens: client.TokenEndpointResponse & client.TokenEndpointResponseHelpers): Promise<Omit<SocialProfile, 'accessToken' | 'refreshToken'>> {
    const claims = tokens.claims()
    if (!claims || typeof claims.sub !== 'string' || claims.sub === '') throw new SocialProtocolError('no ID token')
    let source: Record<string, unknown> = claims
    if (typeof claims.email !== 'string' && config.serverMetadata().userinfo_endpoint) {
      const client = await openid()
      source = { ...(await client.fetchUserInfo(config, tokens.access_token, claims.sub)), sub: claims.sub }
    }
    return profileFromClaims(this.provider, source)
  }

  async #apiProfile(config: client.Configuration, accessToken: string): Promise<Omit<SocialProfile, 'accessToken' | 'refreshToken'>> {
    const p = this.provider
    const client = await openid()
    const get = async (url: string): Promise<unknown> => {
      const headers = new Headers({ accept: 'application/json', 'user-agent': 'trowel' })
      const response = await client.fetchProtectedResource(config, accessToken, new URL(url), 'GET', undefined, headers)
      if (!response.ok) throw new SocialProtocolError(`${url} answered ${response.status}`)
      return response.json()
    }
    if (p.driver === 'github') {
      const user = (await get(`${p.apiUrl}/user`)) as Record<string, unknown>
      const emails = (await get(`${p.apiUrl}/user/emails`)) as unknown
      const primary = Array.isArray(emails) ? (emails as Record<string, unknown>[]).find((e) => e.primary === true && e.verified === true) : undefined
      if (typeof user.id !== 'number' && typeof user.id !== 'string') throw new SocialProtocolError('no GitHub user id')
      const email = typeof primary?.email === 'string' ? primary.email : null
      return { subject: String(user.id), email, emailVerified: email !== null, name: text(user.name) ?? text(user.login) }
    }
    if (p.driver === 'discord') {
      const user = (await get('https://discord.com/api/users/@me')) as Record<string, unknown>
      if (typeof user.id !== 'string') throw new SocialProtocolError('no Discord user id')
      const email = text(user.email)
      return { subject: user.id, email, emailVerified: email !== null && user.verified === true, name: text(user.global_name) ?? text(user.username) }
    }
    const raw = (await get(p.userInfoUrl!)) as Record<string, unknown>
    const mapped = p.mapProfile!(raw)
    if (!mapped || (typeof mapped.id !== 'string' && typeof mapped.id !== 'number') || String(mapped.id) === '') throw new SocialProtocolError('mapProfile gave no id')
    const email = text(mapped.email)
    return { subject: String(mapped.id), email, emailVerified: email !== null && mapped.emailVerified === true, name: text(mapped.name) }
  }
}

/** The `kid` in the header of a token response's `id_token`, or null. */
function idTokenKid(body: unknown): string | null {
  const token = body && typeof body === 'object' ? (body as Record<string, unknown>).id_token : null
  if (typeof token !== 'string') return null
  try {
    const header = JSON.parse(Buffer.from(token.split('.')[0] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>
    return typeof header.kid === 'string' ? header.kid : null
  } catch {
    return null
  }
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null
}

/** The profile of verified OIDC claims (an ID token's, or UserInfo's with the same `sub`). */
export function profileFromClaims(provider: SocialProvider, claims: Record<string, unknown>): Omit<SocialProfile, 'accessToken' | 'refreshToken'> {
  const email = text(claims.email)
  // Microsoft's e-mail claim is whatever the tenant typed: never a verified address.
  const verified = provider.driver !== 'microsoft' && (claims.email_verified === true || claims.email_verified === 'true')
  const name = text(claims.name) ?? ([text(claims.given_name), text(claims.family_name)].filter(Boolean).join(' ') || null)
  return { subject: String(claims.sub), email, emailVerified: email !== null && verified, name }
}
