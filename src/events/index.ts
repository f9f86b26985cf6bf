/**
 * @module events
 * The event emitter behind `app.events` and its typed map.
 */
export { Emitter, type Listener } from './emitter.js'
export type { EventMap, EventName, EventPayload } from './event-map.js'
export { events, setCurrentEvents } from './current-events.js'
