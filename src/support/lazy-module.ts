/**
 * @module support/lazy-module
 * `lazyModule<T>(name)`: a package loaded (with `require`) the first time it is used, not when the
 * framework starts. For libraries only some requests need (TOTP, QR codes, user-agent parsing):
 * every process otherwise carries their code and heap whether or not it ever serves those pages.
 * The first call is synchronous, so call sites stay as they were.
 */
import { createRequire } from 'node:module'

const requireModule = createRequire(import.meta.url)

export function lazyModule<T>(name: string): () => T {
  let loaded: T | undefined
  return () => (loaded ??= requireModule(name) as T)
}
