/**
 * @module container/bindings
 * The types of the container's well-known keys. Each feature adds its own keys by augmenting
 * this interface next to the provider that binds them, so `app.make('auth')` is typed
 * `AuthManager` without a cast; any other key still resolves, as `any` unless a type is given.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface ContainerBindings {}
