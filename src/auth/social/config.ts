/**
 * @module auth/social/config
 * `SOCIAL` of `config/social.ts`, checked at boot: each provider's driver (its `driver` key, else
 * its name when that is a preset), its client, endpoints and options; `state_minutes` and
 * `link_minutes`. A provider whose `clientId` is unset is left out (not served, not shown). An
 * `http:` URL is accepted only for a loopback host, or with `allowHttp: true` outside production;
 * any other mistake stops the boot with a message naming the key.
 */
import { AuthConfigError } from '../errors.js'

export const DRIVERS = ['oidc', 'google', 'microsoft', 'apple', 'gitlab', 'github', 'discord', 'oauth2'] as const
export type DriverName = (typeof DRIVERS)[number]
/** Drivers that speak OpenID Connect (discovery, an ID token). */
export const OIDC_DRIVERS: ReadonlySet<DriverName> = new Set(['oidc', 'google', 'microsoft', 'apple', 'gitlab'])

/** What `mapProfile` of a generic `oauth2` provider returns. */
export interface MappedProfile {
  id: string | number
  email?: string | null
  emailVerified?: boolean
  name?: string | null
}

export interface SocialProvider {
  /** Its key in `providers` (the path segment of its routes). */
  name: string
  driver: DriverName
  /** What the buttons say ("GitHub", "Acme"). */
  label: string
  clientId: string
  clientSecret: string | null
  /** OIDC drivers: the issuer whose discovery document is read. */
  issuer: string | null
  scopes: string[]
  /** Other client ids whose ID tokens the native route accepts. */
  audiences: string[]
  /** Its verified addresses may link automatically onto a verified account of that address. */
  trusted: boolean
  storeTokens: boolean
  allowHttp: boolean
  /** github: the site and API roots; oauth2: its endpoints. */
  url: string | null
  apiUrl: string | null
  authorizeUrl: string | null
  tokenUrl: string | null
  userInfoUrl: string | null
  mapProfile: ((raw: Record<string, unknown>) => MappedProfile) | null
  /** apple: the client secret is an ES256 JWT made from these. */
  teamId: string | null
  keyId: string | null
  privateKey: string | null
}

export interface SocialConfig {
  providers: Map<string, SocialProvider>
  stateMinutes: number
  linkMinutes: number
}

const LABELS: Record<string, string> = { google: 'Google', microsoft: 'Microsoft', apple: 'Apple', gitlab: 'GitLab', github: 'GitHub', discord: 'Discord' }
const DEFAULT_SCOPES: Record<DriverName, string[]> = {
  oidc: ['openid', 'email', 'profile'],
  google: ['openid', 'email', 'profile'],
  microsoft: ['openid', 'email', 'profile'],
  apple: ['openid', 'email', 'name'],
  gitlab: ['openid', 'email', 'profile'],
  github: ['read:user', 'user:email'],
  discord: ['identify', 'email'],
  oauth2: [],
}
const NAME = /^[a-z][a-z0-9_-]{0,63}$/

/** 127.0.0.0/8, [::1] and localhost. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase()
  return h === 'localhost' || h.endsWith('.localhost') || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h)
}

function str(value: unknown): string | null {
  if (value === undefined || value === null || value === false || value === '') return null
  return String(value)
}

export function resolveSocialConfig(raw: unknown, env: { production: boolean }): SocialConfig {
  if (raw === undefined || raw === null) return { providers: new Map(), stateMinutes: 10, linkMinutes: 10 }
  if (typeof raw !== 'object') throw new AuthConfigError('config/social.ts: SOCIAL must be { providers, state_minutes, link_minutes }.')
  const given = raw as Record<string, unknown>
  const minutes = (key: string): number => {
    const v = given[key]
    if (v === undefined) return 10
    if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) throw new AuthConfigError(`config/social.ts: SOCIAL.${key} must be a positive number of minutes.`)
    return v
  }
  const list = given.providers ?? {}
  if (!list || typeof list !== 'object') throw new AuthConfigError('config/social.ts: SOCIAL.providers must be an object of providers.')
  const providers = new Map<string, SocialProvider>()
  for (const [name, value] of Object.entries(list as Record<string, unknown>)) {
    const provider = resolveProvider(name, value, env)
    if (provider) providers.set(name, provider)
  }
  return { providers, stateMinutes: minutes('state_minutes'), linkMinutes: minutes('link_minutes') }
}

function resolveProvider(name: string, value: unknown, env: { production: boolean }): SocialProvider | null {
  const key = `config/social.ts: SOCIAL.providers.${name}`
  if (!NAME.test(name)) throw new AuthConfigError(`${key}: a provider's name is lower-case letters, digits, - and _.`)
  if (!value || typeof value !== 'object') throw new AuthConfigError(`${key} must be an object ({ clientId, clientSecret, ... }).`)
  const p = value as Record<string, unknown>
  const driver = (p.driver ?? (DRIVERS.includes(name as DriverName) && name !== 'oidc' && name !== 'oauth2' ? name : undefined)) as DriverName | undefined
  if (!driver || !DRIVERS.includes(driver)) throw new AuthConfigError(`${key}.driver must be one of ${DRIVERS.join(', ')}.`)
  const clientId = str(p.clientId)
  if (!clientId) return null
  const list = (k: string, fallback: string[]): string[] => {
    const v = p[k]
    if (v === undefined) return fallback
    if (!Array.isArray(v) || v.some((s) => typeof s !== 'string' || s === '')) throw new AuthConfigError(`${key}.${k} must be a list of strings.`)
    return v as string[]
  }
  const flag = (k: string): boolean => {
    const v = p[k]
    if (v === undefined) return false
    if (typeof v !== 'boolean') throw new AuthConfigError(`${key}.${k} must be true or false.`)
    return v
  }
  const allowHttp = flag('allowHttp')
  const url = (k: string, fallback: string | null = null): string | null => {
    const v = str(p[k]) ?? fallback
    if (v === null) return null
    let parsed: URL
    try {
      parsed = new URL(v)
    } catch {
      throw new AuthConfigError(`${key}.${k} is not a URL: ${v}`)
    }
    if (parsed.protocol === 'https:') return v.replace(/\/+$/, '')
    if (parsed.protocol !== 'http:') throw new AuthConfigError(`${key}.${k} must be an https: URL.`)
    if (isLoopback(parsed.hostname) || (allowHttp && !env.production)) return v.replace(/\/+$/, '')
    throw new AuthConfigError(`${key}.${k}: provider "${name}" uses http: (${v}); plain http is accepted only for a loopback host, or with allowHttp: true outside production.`)
  }
  let issuer: string | null = null
  if (driver === 'oidc') {
    issuer = url('issuer')
    if (!issuer) throw new AuthConfigError(`${key}.issuer is required for the oidc driver.`)
  } else if (driver === 'google') issuer = url('issuer', 'https://accounts.google.com')
  else if (driver === 'apple') issuer = url('issuer', 'https://appleid.apple.com')
  else if (driver === 'gitlab') issuer = url('issuer', str(p.url) ?? 'https://gitlab.com')
  else if (driver === 'microsoft') {
    const tenant = str(p.tenant)
    if (!tenant && !p.issuer) throw new AuthConfigError(`${key}.tenant is required (your directory's tenant id): Microsoft's "common" issuer cannot be verified.`)
    issuer = url('issuer', `https://login.microsoftonline.com/${tenant}/v2.0`)
  }
  const github = driver === 'github'
  const mapProfile = p.mapProfile
  if (mapProfile !== undefined && typeof mapProfile !== 'function') throw new AuthConfigError(`${key}.mapProfile must be a function (raw) => ({ id, email, emailVerified, name }).`)
  const provider: SocialProvider = {
    name,
    driver,
    label: str(p.label) ?? LABELS[name] ?? LABELS[driver] ?? name.charAt(0).toUpperCase() + name.slice(1),
    clientId,
    clientSecret: str(p.clientSecret),
    issuer,
    scopes: list('scopes', DEFAULT_SCOPES[driver]),
    audiences: list('audiences', []),
    trusted: flag('trusted'),
    storeTokens: flag('store_tokens'),
    allowHttp,
    url: github ? url('url', 'https://github.com') : null,
    apiUrl: github ? url('apiUrl', p.url ? `${String(p.url).replace(/\/+$/, '')}/api/v3` : 'https://api.github.com') : null,
    authorizeUrl: driver === 'oauth2' ? url('authorizeUrl') : null,
    tokenUrl: driver === 'oauth2' ? url('tokenUrl') : null,
    userInfoUrl: driver === 'oauth2' ? url('userInfoUrl') : null,
    mapProfile: (mapProfile as SocialProvider['mapProfile']) ?? null,
    teamId: str(p.teamId),
    keyId: str(p.keyId),
    privateKey: str(p.privateKey),
  }
  if (driver === 'oauth2') {
    for (const k of ['authorizeUrl', 'tokenUrl', 'userInfoUrl'] as const) if (!provider[k]) throw new AuthConfigError(`${key}.${k} is required for the oauth2 driver.`)
    if (!provider.mapProfile) throw new AuthConfigError(`${key}.mapProfile is required for the oauth2 driver.`)
  }
  if (driver === 'apple' && !provider.clientSecret && !(provider.teamId && provider.keyId && provider.privateKey)) {
    throw new AuthConfigError(`${key}: apple needs teamId, keyId and privateKey (or a clientSecret).`)
  }
  return provider
}
