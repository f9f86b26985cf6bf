/**
 * @module client
 * `trowel/client`: a dependency-free client of a Trowel app's JWT API for browsers, React Native
 * and Node 20+ (see docs/spa-and-mobile.md). Imports nothing from the framework nor from Node.
 */
export { createClient } from './client.js'
export type { ClientAuth, ClientOptions, FetchLike, RequestOptions, SecondFactor, TrowelClient } from './client.js'
export { TrowelError } from './errors.js'
export type { ErrorCode, FieldErrors, KnownErrorCode } from './errors.js'
export { memoryStorage, webStorage } from './storage.js'
export type { TokenStorage, WebStorageLike } from './storage.js'
export type { ChannelConstructor, ChannelLike, LockManagerLike } from './turns.js'
