/**
 * @module auth/throttle/budget
 * One attempt budget (`GUARDS.throttle.login`, `ip`, `account`, `register`, `reset`): at most
 * `attempts` in a window of `minutes`, counted in a ThrottleStore. A slot is taken *before* the
 * work it guards (one atomic increment), so any number of concurrent attempts get at most
 * `attempts` through. Keys are stored as fixed-size digests of the budget name and the key,
 * so an oversized identifier costs the store no more than any other. When the store cannot be
 * reached the budget fails closed: 503 `E_UNAVAILABLE`, never an unthrottled attempt.
 */
import { ServiceUnavailableError } from '../../http/errors.js'
import { sha256Hex } from '../tokens/sha256-hex.js'
import type { BudgetLimit } from '../auth-config.js'
import type { ThrottleStore } from './throttle-store.js'

/** The outcome of `Budget.takeSlot`. */
export type BudgetSlot = { ok: true } | { ok: false; retryAfter: number; first: boolean }

export class Budget {
  constructor(
    readonly name: string,
    readonly store: ThrottleStore,
    /** null: the budget is off and never refuses. */
    readonly limit: BudgetLimit | null,
  ) {}

  /** The stored key of `parts` (e.g. an e-mail and an IP): a digest, whatever their size. */
  key(...parts: string[]): string {
    return sha256Hex(`${this.name}\u0000${parts.join('\u0000')}`)
  }

  /** Takes one slot: null when it was within the budget, else the seconds until a retry may work. */
  async take(key: string): Promise<number | null> {
    const slot = await this.takeSlot(key)
    return slot.ok ? null : slot.retryAfter
  }

  /**
   * Takes one slot and says more than `take`: when refused, the seconds until a retry may work
   * and whether this was the attempt that first went over the budget (the moment a lockout
   * starts; exactly one attempt per window sees it, however many run at once).
   */
  async takeSlot(key: string): Promise<BudgetSlot> {
    const limit = this.limit
    if (!limit) return { ok: true }
    const entry = await this.#guard(() => this.store.hit(key, limit.minutes * 60, limit.attempts))
    if (entry.count <= limit.attempts) return { ok: true }
    return { ok: false, retryAfter: entry.resetInSeconds, first: entry.count === limit.attempts + 1 }
  }

  /** Seconds until `key` may try again when its budget is spent, else null; takes nothing. */
  async retryAfter(key: string): Promise<number | null> {
    if (!this.limit) return null
    const entry = await this.#guard(() => this.store.get(key))
    return entry !== null && entry.count >= this.limit.attempts ? entry.resetInSeconds : null
  }

  /** Gives the budget of `key` back in full (a successful login). */
  async clear(key: string): Promise<void> {
    if (!this.limit) return
    await this.#guard(() => this.store.clear(key))
  }

  async #guard<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn()
    } catch (error) {
      throw new ServiceUnavailableError(undefined, { cause: error })
    }
  }
}
