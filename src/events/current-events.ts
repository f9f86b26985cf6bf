/**
 * @module events/current-events
 * `import { events } from 'trowel'`: the event emitter of the app this process booted (the same
 * object as `app.events`), for modules that have no `app` at hand. Using it before an app has
 * booted is a mistake reported at once.
 */
import { FrameworkError } from '../support/framework-error.js'
import type { Emitter, Listener } from './emitter.js'
import type { EventName, EventPayload } from './event-map.js'

let current: Emitter | null = null

/** Called when an app has booted: `events` speaks for its emitter from then on. */
export function setCurrentEvents(emitter: Emitter | null): void {
  current = emitter
}

function emitter(): Emitter {
  if (!current) throw new FrameworkError('E_NO_APP', 'events is used before an app has booted; inside a provider or a request use app.events.')
  return current
}

export const events = {
  on<K extends EventName>(name: K, listener: Listener<EventPayload<K>>): () => void {
    return emitter().on(name, listener)
  },
  off<K extends EventName>(name: K, listener: Listener<EventPayload<K>>): void {
    emitter().off(name, listener)
  },
  emit<K extends EventName>(name: K, payload: EventPayload<K>): void {
    emitter().emit(name, payload)
  },
}
