/**
 * @module api/jwt-service-registry
 * How model methods such as `user.generateJwt()` find their app's JwtService: ApiProvider puts a
 * resolver on the model class of `DRIVERS.jwt.model` (`bindJwtService`), and an instance reads it
 * from its own class (subclasses inherit it, as static members do). The service is the app's that
 * configured that model, never a process-wide "current" one.
 */
import type { JwtService } from './jwt-service.js'
import { ApiConfigError } from './errors.js'

const JWT_SERVICE = Symbol('trowel.jwtService')

type WithService = { [JWT_SERVICE]?: () => JwtService }

/** Makes `model` and its subclasses issue tokens through `resolve` (ApiProvider, with its app's service). */
export function bindJwtService(model: object, resolve: () => JwtService): void {
  Object.defineProperty(model, JWT_SERVICE, { value: resolve, configurable: true, writable: true, enumerable: false })
}

/** The JwtService of the app whose `DRIVERS.jwt.model` is `user`'s class (or one it extends). */
export function jwtServiceOf(user: object): JwtService {
  const resolve = (user.constructor as WithService | undefined)?.[JWT_SERVICE]
  if (!resolve) {
    throw new ApiConfigError('The JWT API is not enabled for this model: add ApiProvider to PROVIDERS in config/providers.ts, run "node craft api:install", and name the model in DRIVERS.jwt.model of config/api.ts.')
  }
  return resolve()
}
