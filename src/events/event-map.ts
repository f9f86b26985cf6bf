/**
 * @module events/event-map
 * The names and payload types of every event `app.events` carries. Features add theirs by
 * augmenting this interface (`declare module 'trowel' { interface EventMap { ... } }`), so
 * `events.on(name, listener)` is type-checked against the payload.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface EventMap {}

/** An event name of the map, or any string for an app's own events. */
export type EventName = keyof EventMap | (string & {})

/** The payload of `name`: its declared type, or `unknown` for an undeclared name. */
export type EventPayload<K> = K extends keyof EventMap ? EventMap[K] : unknown
