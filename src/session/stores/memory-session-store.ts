/**
 * @module session/stores/memory-session-store
 * The `memory` driver: sessions in a Map inside this process. Good for tests and one-process
 * development; every restart logs everybody out and `--workers N` processes do not share it.
 */
import { decodeSessionData, encodeSessionData, type SessionData, type SessionStore } from '../session-store.js'

interface Entry {
  payload: string
  expiresAt: number
}

export class MemorySessionStore implements SessionStore {
  readonly #entries = new Map<string, Entry>()
  #writes = 0

  async read(id: string): Promise<SessionData | null> {
    const entry = this.#entries.get(id)
    if (!entry) return null
    if (entry.expiresAt <= Date.now()) {
      this.#entries.delete(id)
      return null
    }
    return decodeSessionData(entry.payload)
  }

  async write(id: string, data: SessionData, ttlSeconds: number): Promise<void> {
    // Stored as text, so later changes to `data` never leak into the stored copy.
    this.#entries.set(id, { payload: encodeSessionData(data), expiresAt: Date.now() + ttlSeconds * 1000 })
    if (++this.#writes % 100 === 0) this.prune()
  }

  async destroy(id: string): Promise<void> {
    this.#entries.delete(id)
  }

  /** Removes expired sessions; returns how many. */
  prune(now = Date.now()): number {
    let removed = 0
    for (const [id, entry] of this.#entries) {
      if (entry.expiresAt <= now) {
        this.#entries.delete(id)
        removed++
      }
    }
    return removed
  }

  get size(): number {
    return this.#entries.size
  }
}
