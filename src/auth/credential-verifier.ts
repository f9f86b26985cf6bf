/**
 * @module auth/credential-verifier
 * Checks an identifier and password the same way for every entry point (the web login form, the
 * API's token route, `auth.attempt`). In order:
 *
 * 1. Oversized input (an identifier over 320 bytes, a password over 4,096 bytes) is refused at
 *    once: no throttle state, no look-up, no hashing (the guard answers 422 / 302 back).
 * 2. Budgets, each a slot taken *before* any hashing (one atomic increment, so of any number of
 *    concurrent attempts at most `attempts` get through):
 *    - `ip`: per client address across all accounts (IPv6 per /64, `clientKey`);
 *    - `login`: per normalised e-mail + client address;
 *    - `account`: per account across all addresses, only when the identifier names an account
 *      (looked up by its unique index first); an attempt carrying a valid `trowel_device` cookie
 *      for that account is counted on the device's own key instead, so a flood against the
 *      account never locks out a device that has logged into it before.
 *    A refused slot throws `BudgetExceededError` (a 429 `TooManyRequestsError`) without hashing.
 * 3. An unknown identifier costs the same hashing work as a wrong password (one hasher call);
 *    malformed input (not a string, empty, a password over 1,024 characters) is a wrong password
 *    that costs a slot but no look-up and no hashing.
 * 4. Success gives the `login` budget back (not `ip` or `account`), and a bcrypt hash (or a
 *    weaker argon2 one) is rehashed to argon2id.
 *
 * A budget whose store is unreachable throws 503 E_UNAVAILABLE (fail closed), never "wrong
 * password". It reports what happened; the guard that asked turns that into events and a login.
 */
import type { Hasher } from './hashing/index.js'
import type { LoginThrottle } from './throttle/login-throttle.js'
import type { Logger } from '../support/logger.js'
import type { AuthUser, CredentialUserProvider } from './types.js'
import { TooManyRequestsError } from '../http/errors.js'
import { isPasswordTooLong } from './hashing/password-length.js'
import { Budget } from './throttle/budget.js'
import { clientKey } from './throttle/client-key.js'
import { normalizeEmail } from './email.js'
import { DEFAULT_BUDGETS } from './auth-config.js'

/** The longest identifier accepted, in UTF-8 bytes (the longest valid e-mail address). */
export const MAX_IDENTIFIER_BYTES = 320
/** The longest password accepted as input, in UTF-8 bytes; longer is a 422, not a wrong password. */
export const MAX_PASSWORD_BYTES = 4096

/** The budgets a credential check takes slots of (`GUARDS.throttle.login`, `ip`, `account`). */
export interface VerifierBudgets {
  login: Budget
  ip: Budget
  account: Budget
}

export interface VerifyOptions {
  /** The client address (`request.ip()`). */
  ip: string
  /**
   * The device id of a valid `trowel_device` cookie that names account `accountId`, else null:
   * such an attempt is counted on the device's own key instead of the account's.
   */
  deviceFor?: (accountId: unknown) => string | null | Promise<string | null>
  /** Aborted when the client has gone: the hasher need not run the check. */
  signal?: AbortSignal
}

export type VerifyResult<User> =
  | { ok: true; user: User; tooLong?: undefined }
  /** `user` is the account the identifier named (a wrong password), or null. */
  | { ok: false; user: User | null; tooLong?: undefined }
  /** Oversized input, refused before any budget, look-up or hashing: the guard answers 422. */
  | { ok: false; user: null; tooLong: 'identifier' | 'password' }

/** Refused by a budget: a 429 that also says which budget and, for `account`, whose. */
export class BudgetExceededError extends TooManyRequestsError {
  constructor(
    retryAfterSeconds: number,
    /** `login`, `ip` or `account` (`account` also for a device's own key: see `device`). */
    readonly budget: 'login' | 'ip' | 'account',
    /** The account whose budget it was (`account` only), else null. */
    readonly account: AuthUser | null = null,
    /** True for the one attempt that first went over the budget in this window. */
    readonly first = false,
    /** True when it was a known device's own key rather than the account's. */
    readonly device = false,
  ) {
    super(retryAfterSeconds)
  }

  /** The attempt that locked the account (not a device) for everyone else: emit `auth:account_locked`. */
  get locksAccount(): boolean {
    return this.budget === 'account' && this.first && !this.device && this.account !== null
  }
}

export class CredentialVerifier {
  readonly budgets: VerifierBudgets

  /**
   * `budgets`: the app's (`app.make('auth.budgets')`). A `LoginThrottle` (older code and tests)
   * gives a `login` budget of its limits on its store, and the default `ip` and `account` ones.
   */
  constructor(
    readonly hasher: Hasher,
    budgets: VerifierBudgets | LoginThrottle,
    readonly log: Logger,
  ) {
    this.budgets = 'login' in budgets ? budgets : budgetsOf(budgets)
  }

  /**
   * Checks `identifier` and `password` against `provider`'s users for a client (`options.ip`, or
   * `options` itself as the address). Throws `BudgetExceededError` (429) when a budget refuses,
   * and 503 `E_UNAVAILABLE` when the budgets' store cannot be reached.
   */
  async verify<User extends AuthUser>(
    provider: CredentialUserProvider<User>,
    identifier: unknown,
    password: unknown,
    options: VerifyOptions | string,
  ): Promise<VerifyResult<User>> {
    const { ip, deviceFor, signal } = typeof options === 'string' ? ({ ip: options } as VerifyOptions) : options
    if (typeof identifier === 'string' && exceedsBytes(identifier, MAX_IDENTIFIER_BYTES)) return { ok: false, user: null, tooLong: 'identifier' }
    if (typeof password === 'string' && exceedsBytes(password, MAX_PASSWORD_BYTES)) return { ok: false, user: null, tooLong: 'password' }

    const { ip: ipBudget, login, account } = this.budgets
    const client = clientKey(ip)
    await take(ipBudget, ipBudget.key(client), 'ip')
    const loginKey = login.key(normalizeEmail(identifier), client)
    await take(login, loginKey, 'login')
    if (typeof identifier !== 'string' || typeof password !== 'string' || !wellFormed(identifier, password)) return { ok: false, user: null }

    const user = await provider.findForCredentials(identifier)
    if (user) {
      const accountKey = accountKeyOf(provider, user)
      const device = (await deviceFor?.(user.getKey())) ?? null
      if (device) await take(account, account.key(accountKey, 'device', device), 'account', user, true)
      else await take(account, account.key(accountKey), 'account', user)
    }
    // The check waits in this client's line of the hashing queue (fair), and is dropped if the client goes.
    const check = { client, signal }
    const hash = user ? provider.passwordHashOf(user) : null
    const ok = user && hash !== null ? await this.hasher.verify(hash, password, check) : await this.hasher.dummyVerify(password, check)
    if (!ok || !user) return { ok: false, user }
    try {
      await login.clear(loginKey)
    } catch (error) {
      // The password was right: a store that failed to forget the attempts must not refuse it.
      this.log.warn('auth.throttle_clear_failed', { user_id: user.getKey(), error })
    }
    await this.#rehash(provider, user, password)
    return { ok: true, user }
  }

  async #rehash<User extends AuthUser>(provider: CredentialUserProvider<User>, user: User, password: string): Promise<void> {
    const hash = provider.passwordHashOf(user)
    if (hash === null || !this.hasher.needsRehash(hash)) return
    try {
      await provider.updatePasswordHash(user, await this.hasher.hash(password))
    } catch (error) {
      this.log.warn('auth.rehash_failed', { user_id: user.getKey(), error })
    }
  }
}

async function take(budget: Budget, key: string, name: 'login' | 'ip' | 'account', account: AuthUser | null = null, device = false): Promise<void> {
  const slot = await budget.takeSlot(key)
  if (!slot.ok) throw new BudgetExceededError(slot.retryAfter, name, account, slot.first, device)
}

/** The account's budget key: its model's table (two guards may use two user tables) and its primary key. */
function accountKeyOf(provider: CredentialUserProvider<AuthUser>, user: AuthUser): string {
  const table = (provider as { model?: { getTable?: () => string } }).model?.getTable?.() ?? ''
  return `${table}\u0000${String(user.getKey())}`
}

/** True when `text` is over `max` UTF-8 bytes (a UTF-16 unit is at least one byte: no need to count a huge one). */
function exceedsBytes(text: string, max: number): boolean {
  return text.length > max || Buffer.byteLength(text, 'utf8') > max
}

/** Worth a look-up and a hash: a non-blank identifier and a password of 1 to 1,024 characters. */
function wellFormed(identifier: string, password: string): boolean {
  return identifier.trim() !== '' && password !== '' && !isPasswordTooLong(password)
}

/** The budgets of an older `LoginThrottle`: its login limits on its store, default ip and account. */
function budgetsOf(throttle: LoginThrottle): VerifierBudgets {
  return {
    login: new Budget('login', throttle.store, { attempts: throttle.maxAttempts, minutes: throttle.decaySeconds / 60 }),
    ip: new Budget('ip', throttle.store, DEFAULT_BUDGETS.ip),
    account: new Budget('account', throttle.store, DEFAULT_BUDGETS.account),
  }
}
