/**
 * @module events/emitter
 * A typed event emitter (`app.events`). `emit` calls the listeners of a name in the order they
 * were added; a listener that throws, or whose promise rejects, is reported through `onError`
 * and never reaches the code that emitted: an audit or mail listener cannot fail a request.
 */
import type { EventName, EventPayload } from './event-map.js'

export type Listener<P> = (payload: P) => unknown

export class Emitter {
  readonly #listeners = new Map<string, Listener<any>[]>()
  /** Called with the error and the event name when a listener fails. */
  onError: (error: unknown, name: string) => void

  constructor(onError: (error: unknown, name: string) => void = () => {}) {
    this.onError = onError
  }

  /** Adds a listener; returns a function that removes it. */
  on<K extends EventName>(name: K, listener: Listener<EventPayload<K>>): () => void {
    const list = this.#listeners.get(name) ?? []
    this.#listeners.set(name, [...list, listener])
    return () => this.off(name, listener)
  }

  off<K extends EventName>(name: K, listener: Listener<EventPayload<K>>): void {
    const list = this.#listeners.get(name)
    if (list) this.#listeners.set(name, list.filter((l) => l !== listener))
  }

  listenerCount(name: EventName): number {
    return this.#listeners.get(name)?.length ?? 0
  }

  /** Calls every listener of `name` with `payload`; never throws. */
  emit<K extends EventName>(name: K, payload: EventPayload<K>): void {
    const list = this.#listeners.get(name)
    if (!list) return
    for (const listener of list) {
      try {
        const result = listener(payload)
        if (typeof (result as PromiseLike<unknown> | null)?.then === 'function') {
          Promise.resolve(result).catch((error) => this.onError(error, name))
        }
      } catch (error) {
        this.onError(error, name)
      }
    }
  }
}
