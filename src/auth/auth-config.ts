/**
 * @module auth/auth-config
 * `GUARDS` of `config/auth.ts`, checked once when auth is first built, so a mistake stops the
 * app at startup with a message naming the key, never as a 500 on a request.
 */
import type { AuthModel } from './user-providers/model-user-provider.js'
import { AuthConfigError } from './errors.js'

/** `GUARDS` as an app writes it (the generated keys, plus one entry per guard). */
export interface AuthGuardsConfig {
  default: string
  password_reset_table?: string
  password_reset_expiration?: number | null
  /** Minutes a web login lasts from its creation (default 20160, 14 days); null = until logout. */
  login_lifetime?: number | null
  /** The audit log: rows in `auth_events` (default on), pruned after `keep_days` (default 365). */
  audit?: { enabled?: boolean; keep_days?: number | null }
  /** Attempt budgets, each `{ attempts, minutes }` or null (off). */
  throttle?: Partial<Record<BudgetName, BudgetLimit | null>> & Record<string, BudgetLimit | readonly BudgetLimit[] | null | undefined>
  /** Password hashing: `max_wait` ms a check may wait for a thread before 503 E_SERVER_BUSY. */
  hashing?: { max_wait?: number }
  /** The account features whose routes `Auth.routes()` adds (absent: registration and reset_passwords only). */
  features?: string[]
  /** Security e-mails, each on (true) or off (false). */
  notifications?: Partial<Record<NotificationName, boolean>>
  /** The `mfa` middleware: days a user without a second factor may still pass (default 0). */
  mfa?: { grace_days?: number }
  [guard: string]: unknown
}

/**
 * The budgets of `GUARDS.throttle` with one limit, each a `Budget` on `manager.budgets`. A feature
 * adds its own by augmenting this interface (`declare module '.../auth-config.js'`) and declaring
 * the default in its module's `budgets`.
 */
/** The core's budgets (the features' augment `AuthBudgets`). */
export type CoreBudgetName = 'login' | 'ip' | 'account' | 'verify' | 'confirm'
export interface AuthBudgets {
  login: true
  ip: true
  account: true
  verify: true
  confirm: true
}
export type BudgetName = keyof AuthBudgets

/** What an app without `GUARDS.features` gets: the login, registration and reset pages only. */
export const LEGACY_FEATURES: readonly string[] = ['registration', 'reset_passwords']

/** The security e-mails of `GUARDS.notifications` the core sends; a feature adds its own names by augmenting. */
export interface AuthNotifications {
  new_device: true
  password_changed: true
  email_changed: true
  account_locked: true
  token_reuse: true
  token_created: true
}
export type NotificationName = keyof AuthNotifications
const CORE_NOTIFICATIONS: readonly NotificationName[] = ['new_device', 'password_changed', 'email_changed', 'account_locked', 'token_reuse', 'token_created']

/** Every name of `GUARDS.notifications`: the core's, then the features'. */
export function notificationNames(features: readonly FeatureDeclaration[]): NotificationName[] {
  return [...CORE_NOTIFICATIONS, ...(featureNotifications(features) as NotificationName[])]
}

/** At most `attempts` in a window of `minutes`. */
export interface BudgetLimit {
  attempts: number
  minutes: number
}

/** The core's defaults of `GUARDS.throttle` (the features add theirs). */
export const DEFAULT_BUDGETS: Record<CoreBudgetName, BudgetLimit> = {
  login: { attempts: 5, minutes: 1 },
  ip: { attempts: 100, minutes: 60 },
  account: { attempts: 100, minutes: 60 },
  verify: { attempts: 6, minutes: 1 },
  confirm: { attempts: 5, minutes: 1 },
}

/** A budget's limit: one, a list (each its own window), or null (off). */
export type BudgetValue = BudgetLimit | readonly BudgetLimit[] | null

/**
 * What the config reads of each feature module (`AuthFeatureModule`, features/contract.ts): its
 * name, what it requires, its budgets and notification names. Declared here, structurally, so
 * the config's validation needs neither the contract nor the list.
 */
export interface FeatureDeclaration {
  readonly name: string
  readonly requires?: readonly string[]
  readonly budgets?: Readonly<Record<string, BudgetLimit | readonly BudgetLimit[]>>
  readonly notifications?: readonly string[]
}

/**
 * Checks `GUARDS.features`: a list of known names whose requirements are on too. An unknown name
 * names the known ones; a missing requirement names both features.
 */
export function resolveFeatureNames(value: unknown, fallback: readonly string[], list: readonly FeatureDeclaration[]): ReadonlySet<string> {
  const known = list.map((f) => f.name)
  if (value === undefined) return new Set(fallback)
  if (!Array.isArray(value)) throw new AuthConfigError(`config/auth.ts: GUARDS.features must be a list of features (${known.join(', ')}).`)
  for (const name of value) {
    if (typeof name !== 'string' || !known.includes(name)) {
      throw new AuthConfigError(`config/auth.ts: GUARDS.features: ${JSON.stringify(name)} is not a feature (${known.join(', ')}).`)
    }
  }
  const on = new Set(value as string[])
  for (const feature of list) {
    if (!on.has(feature.name)) continue
    for (const needed of feature.requires ?? []) {
      if (!on.has(needed)) throw new AuthConfigError(`config/auth.ts: GUARDS.features: "${feature.name}" needs "${needed}"; add "${needed}" to the list or remove "${feature.name}".`)
    }
  }
  return on
}

/** The default limits of the budgets the features own (a name owned twice is a bug in the list). */
export function featureBudgets(list: readonly FeatureDeclaration[]): Record<string, BudgetLimit | readonly BudgetLimit[]> {
  const out: Record<string, BudgetLimit | readonly BudgetLimit[]> = {}
  for (const feature of list) {
    for (const [name, limit] of Object.entries(feature.budgets ?? {})) {
      if (name in out) throw new Error(`Two auth features own the budget "${name}".`)
      out[name] = limit
    }
  }
  return out
}

/** The notification names the features own. */
export function featureNotifications(list: readonly FeatureDeclaration[]): string[] {
  return list.flatMap((f) => f.notifications ?? [])
}

export interface ResolvedAuthConfig {
  /** The default guard's name (`web`). */
  defaultGuard: string
  /** The default guard's model, when set. */
  model: AuthModel | undefined
  passwordResetTable: string
  /** Minutes; null = reset links never expire. */
  passwordResetExpiration: number | null
  /** Minutes; null = web logins last until logout. */
  loginLifetime: number | null
  /** The model configured for guard `name`, else the default guard's. */
  modelFor(name: string): AuthModel | undefined
  /** Whether auth events are written to `auth_events`, and for how many days they are kept (null = forever). */
  audit: { enabled: boolean; keepDays: number | null }
  /** Each budget's limit (the core's and every feature's, on or not); null = that budget is off. */
  throttle: Readonly<Record<string, BudgetValue>>
  /** Milliseconds a password check may wait for a hashing thread (default 2000). */
  hashingMaxWait: number
  /** Minutes without a request after which a web login ends (default 120); null = never. */
  idleTimeout: number | null
  /** The features whose routes `Auth.routes()` adds. */
  features: ReadonlySet<string>
  /** Minutes a "remember me" cookie lasts (`GUARDS.web.remember_lifetime`, default 43200, 30 days). */
  rememberLifetime: number
  /** Minutes a typed password satisfies `password.confirm` (`GUARDS.web.password_timeout`, default 15). */
  passwordTimeout: number
  /**
   * Seconds a replaced "remember me" token still restores its successor's login instead of counting
   * as theft (`GUARDS.web.remember_reuse_window`, default 10, at most 3600; 0 turns it off).
   */
  rememberReuseWindow: number
  /** Which security e-mails are sent. */
  notifications: Record<NotificationName, boolean>
  /** The `mfa` middleware's policy: days from the account's creation before it is enforced. */
  mfa: { graceDays: number }
}

function budgetLimit(value: unknown, name: string): BudgetLimit {
  const { attempts, minutes } = (value ?? {}) as { attempts?: unknown; minutes?: unknown }
  if (!Number.isInteger(attempts) || (attempts as number) < 1 || typeof minutes !== 'number' || !Number.isFinite(minutes) || minutes <= 0) {
    throw new AuthConfigError(`config/auth.ts: GUARDS.throttle.${name} must be { attempts: a whole number from 1, minutes: a positive number } or null.`)
  }
  return { attempts: attempts as number, minutes }
}

function resolveBudgets(value: unknown, features: readonly FeatureDeclaration[]): Record<string, BudgetValue> {
  if (value !== undefined && (!value || typeof value !== 'object')) throw new AuthConfigError('config/auth.ts: GUARDS.throttle must be an object of budgets.')
  const given = (value ?? {}) as Record<string, unknown>
  const defaults: Record<string, BudgetValue> = { ...DEFAULT_BUDGETS, ...featureBudgets(features) }
  const out = { ...defaults }
  for (const [name, limit] of Object.entries(given)) {
    if (!(name in defaults)) throw new AuthConfigError(`config/auth.ts: GUARDS.throttle.${name} is not a budget (${Object.keys(defaults).join(', ')}).`)
    // A budget whose default is a list takes a list or one limit; the others one limit.
    out[name] = limit === null ? null : Array.isArray(limit) && Array.isArray(defaults[name]) ? limit.map((l) => budgetLimit(l, name)) : budgetLimit(limit, name)
  }
  return out
}

function resolveMfa(value: unknown): ResolvedAuthConfig['mfa'] {
  if (value === undefined) return { graceDays: 0 }
  const graceDays = (value as { grace_days?: unknown } | null)?.grace_days
  if (!value || typeof value !== 'object' || (graceDays !== undefined && !(typeof graceDays === 'number' && Number.isFinite(graceDays) && graceDays >= 0))) {
    throw new AuthConfigError(`config/auth.ts: GUARDS.mfa must be { grace_days: a number of days from 0 }, got ${JSON.stringify(value)}.`)
  }
  return { graceDays: (graceDays as number | undefined) ?? 0 }
}

function resolveMaxWait(value: unknown): number {
  const maxWait = (value as { max_wait?: unknown } | undefined)?.max_wait
  if (maxWait === undefined) return 2000
  if (typeof maxWait !== 'number' || !Number.isFinite(maxWait) || maxWait <= 0) {
    throw new AuthConfigError('config/auth.ts: GUARDS.hashing.max_wait must be a positive number of milliseconds.')
  }
  return maxWait
}

function resolveAudit(value: unknown): ResolvedAuthConfig['audit'] {
  if (value === undefined) return { enabled: true, keepDays: 365 }
  if (!value || typeof value !== 'object') throw new AuthConfigError('config/auth.ts: GUARDS.audit must be { enabled, keep_days }.')
  const { enabled, keep_days: keepDays } = value as { enabled?: unknown; keep_days?: unknown }
  if (enabled !== undefined && typeof enabled !== 'boolean') throw new AuthConfigError('config/auth.ts: GUARDS.audit.enabled must be true or false.')
  if (keepDays !== undefined && keepDays !== null && !(typeof keepDays === 'number' && Number.isFinite(keepDays) && keepDays > 0)) {
    throw new AuthConfigError(`config/auth.ts: GUARDS.audit.keep_days must be a positive number of days or null, got ${JSON.stringify(keepDays)}.`)
  }
  return { enabled: enabled ?? true, keepDays: keepDays === undefined ? 365 : (keepDays as number | null) }
}

function minutes(value: unknown, key: string, fallback: number): number | null {
  if (value === undefined) return fallback
  if (value === null) return null
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new AuthConfigError(`config/auth.ts: GUARDS.${key} must be a positive number of minutes or null, got ${JSON.stringify(value)}.`)
  }
  return value
}

function resolveNotifications(value: unknown, features: readonly FeatureDeclaration[]): Record<NotificationName, boolean> {
  // Absent (an app made before these e-mails) or not named: off. The generated file turns all on.
  const names = notificationNames(features)
  const out = Object.fromEntries(names.map((n) => [n, false])) as Record<NotificationName, boolean>
  if (value === undefined) return out
  if (!value || typeof value !== 'object') throw new AuthConfigError('config/auth.ts: GUARDS.notifications must be an object of { name: true | false }.')
  for (const [name, on] of Object.entries(value)) {
    if (!(names as string[]).includes(name)) throw new AuthConfigError(`config/auth.ts: GUARDS.notifications.${name} is not a notification (${names.join(', ')}).`)
    if (typeof on !== 'boolean') throw new AuthConfigError(`config/auth.ts: GUARDS.notifications.${name} must be true or false.`)
    out[name as NotificationName] = on
  }
  return out
}

/** Seconds from 0 to 3600 (default 10): how long a replaced token is still a retry, not a theft. */
function reuseWindowSeconds(value: unknown, key: string): number {
  if (value === undefined) return 10
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 3600) {
    throw new AuthConfigError(`config/auth.ts: GUARDS.${key} must be a number of seconds from 0 to 3600, got ${JSON.stringify(value)}.`)
  }
  return value
}

/** Like `minutes`, but null is refused: the setting needs a finite value. */
function requiredMinutes(value: unknown, key: string, fallback: number): number {
  if (value === null) throw new AuthConfigError(`config/auth.ts: GUARDS.${key} must be a positive number of minutes, got null.`)
  return minutes(value, key, fallback) as number
}

/**
 * Validates `GUARDS` against the app's feature modules (`features`: the list the composition
 * binds as `auth.features`); `requireModel` (when serving) insists on the default guard's model.
 */
export function resolveAuthConfig(guards: unknown, options: { requireModel: boolean; features: readonly FeatureDeclaration[] }): ResolvedAuthConfig {
  const { features } = options
  if (!guards || typeof guards !== 'object') throw new AuthConfigError('config/auth.ts is missing or does not export GUARDS.')
  const config = guards as AuthGuardsConfig
  const defaultGuard = typeof config.default === 'string' && config.default !== '' ? config.default : 'web'
  const modelOf = (name: string): AuthModel | undefined => (config[name] as { model?: AuthModel } | undefined)?.model
  const model = modelOf(defaultGuard)
  if (!model && options.requireModel) {
    throw new AuthConfigError(`config/auth.ts: GUARDS.${defaultGuard}.model must be your User model.`)
  }
  const web = config[defaultGuard] as { idle_timeout?: unknown; remember_lifetime?: unknown; password_timeout?: unknown; remember_reuse_window?: unknown } | undefined
  const table = config.password_reset_table ?? 'password_resets'
  if (typeof table !== 'string' || table === '') throw new AuthConfigError('config/auth.ts: GUARDS.password_reset_table must be a table name.')
  return {
    defaultGuard,
    model,
    passwordResetTable: table,
    passwordResetExpiration: minutes(config.password_reset_expiration, 'password_reset_expiration', 1440),
    loginLifetime: minutes(config.login_lifetime, 'login_lifetime', 20160),
    modelFor: (name) => modelOf(name) ?? model,
    audit: resolveAudit(config.audit),
    throttle: resolveBudgets(config.throttle, features),
    hashingMaxWait: resolveMaxWait(config.hashing),
    idleTimeout: minutes(web?.idle_timeout, `${defaultGuard}.idle_timeout`, 120),
    features: resolveFeatureNames(config.features, LEGACY_FEATURES, features),
    rememberLifetime: requiredMinutes(web?.remember_lifetime, `${defaultGuard}.remember_lifetime`, 43200),
    passwordTimeout: requiredMinutes(web?.password_timeout, `${defaultGuard}.password_timeout`, 15),
    rememberReuseWindow: reuseWindowSeconds(web?.remember_reuse_window, `${defaultGuard}.remember_reuse_window`),
    notifications: resolveNotifications(config.notifications, features),
    mfa: resolveMfa(config.mfa),
  }
}

declare module '../foundation/config-files.js' {
  interface ConfigFiles {
    auth: { GUARDS?: AuthGuardsConfig }
  }
}
