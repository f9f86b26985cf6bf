/**
 * @module auth/two-factor/failure-watch
 * Someone who has the password is guessing second-factor answers. Counted per account in the
 * throttle store (so it holds across processes sharing Redis or the database), only for answers
 * that were checked (ones the per-minute `two_factor` budget refused do not count):
 * - the 5th wrong answer within an hour: `auth:two_factor_failed` carries `repeated: true`, which
 *   sends the `second_factor_failed` notice (once per hour at most);
 * - the 20th within a day: second-factor answers of the account stop (429 / a message) until its
 *   password changes. The counters and the stop are keyed by a fingerprint of the password hash,
 *   so a password reset (or change) starts afresh with nothing to clean up.
 * Also the one-at-a-time rule of the API's second step: an answer for an `mfa_token` holds a slot
 * while it is checked; a concurrent one is refused without touching any code.
 */
import type { HttpContext } from '../../http/context.js'
import { TooManyRequestsError } from '../../http/errors.js'
import { sha256Hex } from '../tokens/sha256-hex.js'
import { Budget } from '../throttle/budget.js'
import type { ThrottleStore } from '../throttle/throttle-store.js'
import { ModelUserProvider } from '../user-providers/model-user-provider.js'
import type { AuthUser } from '../types.js'

/** Wrong answers within an hour that send the notice. */
export const NOTICE_AFTER_FAILURES = 5
/** Wrong answers within a day that stop second-factor answers until a password reset. */
export const STOP_AFTER_FAILURES = 20
/** Ten years: the stop lasts until the password changes (its key then is another). */
const STOP_MINUTES = 10 * 365 * 24 * 60
/** How long an in-flight answer holds its mfa_token at most (a process that died mid-answer). */
const IN_FLIGHT_MINUTES = 1

export const FAILURE_MESSAGES = {
  stopped: 'Too many wrong codes were entered for this account. Reset your password to sign in again.',
  busy: 'Another answer for this login is being checked. Try again in a moment.',
} as const

export class SecondFactorWatch {
  // A budget refuses the attempt after `attempts`: the first refusal is the Nth wrong answer.
  readonly #hour: Budget
  readonly #day: Budget
  readonly #stop: Budget
  readonly #inFlight: Budget

  constructor(store: ThrottleStore) {
    this.#hour = new Budget('two_factor_failed_hour', store, { attempts: NOTICE_AFTER_FAILURES - 1, minutes: 60 })
    this.#day = new Budget('two_factor_failed_day', store, { attempts: STOP_AFTER_FAILURES - 1, minutes: 24 * 60 })
    this.#stop = new Budget('two_factor_stopped', store, { attempts: 1, minutes: STOP_MINUTES })
    this.#inFlight = new Budget('two_factor_in_flight', store, { attempts: 1, minutes: IN_FLIGHT_MINUTES })
  }

  /** Whether second-factor answers of `user` are stopped (20 wrong in a day, password unchanged). */
  async stopped(ctx: HttpContext, user: AuthUser): Promise<boolean> {
    return (await this.#stop.retryAfter(this.#key(this.#stop, ctx, user))) !== null
  }

  /** Counts a checked wrong answer; `notify`: this one is the 5th within the hour. */
  async recordFailure(ctx: HttpContext, user: AuthUser): Promise<{ notify: boolean }> {
    const [hour, day] = await Promise.all([this.#hour.takeSlot(this.#key(this.#hour, ctx, user)), this.#day.takeSlot(this.#key(this.#day, ctx, user))])
    if (!day.ok && day.first) {
      await this.#stop.take(this.#key(this.#stop, ctx, user))
      ctx.app.log.warn('auth.two_factor_stopped', { user_id: user.getKey(), ip: ctx.request.ip(), request_id: ctx.request.id })
    }
    return { notify: !hour.ok && hour.first }
  }

  /**
   * Runs `answer` while holding `key` (an mfa_token's row): a concurrent call gets a 429
   * `E_TOO_MANY_REQUESTS` without running it. The slot is given back when `answer` ends.
   */
  async oneAtATime<T>(key: string, answer: () => Promise<T>): Promise<T> {
    const slot = this.#inFlight.key(key)
    if ((await this.#inFlight.take(slot)) !== null) throw new TooManyRequestsError(1, FAILURE_MESSAGES.busy)
    try {
      return await answer()
    } finally {
      await this.#inFlight.clear(slot)
    }
  }

  /** The account's key in `budget`: its id and a fingerprint of its current password hash. */
  #key(budget: Budget, ctx: HttpContext, user: AuthUser): string {
    const model = ctx.auth.manager.model
    const hash = model ? new ModelUserProvider(model).passwordHashOf(user as never) : null
    return budget.key('user', String(user.getKey()), hash === null ? '' : sha256Hex(hash).slice(0, 16))
  }
}
