/**
 * @module api/jwt-service-registry
 * How model methods such as `user.generateJwt()` and `user.createToken()` find their app's API:
 * ApiProvider puts a resolver on the model class of `DRIVERS.jwt.model` (`bindModelApi`), and an
 * instance reads it from its own class (subclasses inherit it, as static members do). The
 * services are those of the app that configured that model, never a process-wide "current" one.
 */
import type { JwtService } from './jwt-service.js'
import type { PersonalTokenRepository } from './personal-tokens/repository.js'
import type { Emitter } from '../events/emitter.js'
import { ApiConfigError } from './errors.js'

const MODEL_API = Symbol('trowel.modelApi')

/** What a model's token methods use: the app's JwtService, its personal tokens and its events. */
export interface ModelApi {
  jwt(): JwtService
  personalTokens(): PersonalTokenRepository
  events: Pick<Emitter, 'emit'>
}

type WithApi = { [MODEL_API]?: ModelApi }

/** Makes `model` and its subclasses issue tokens through `api` (ApiProvider, with its app's services). */
export function bindModelApi(model: object, api: ModelApi): void {
  Object.defineProperty(model, MODEL_API, { value: api, configurable: true, writable: true, enumerable: false })
}

/** The JwtService of the app whose `DRIVERS.jwt.model` is `user`'s class (or one it extends). */
export function jwtServiceOf(user: object): JwtService {
  return modelApiOf(user).jwt()
}

/** The API services of the app whose `DRIVERS.jwt.model` is `user`'s class (or one it extends); undefined when no app serves it. */
export function boundModelApi(user: object): ModelApi | undefined {
  return (user.constructor as WithApi | undefined)?.[MODEL_API]
}

/** `boundModelApi`, refusing a model no app serves. */
export function modelApiOf(user: object): ModelApi {
  const api = boundModelApi(user)
  if (!api) {
    throw new ApiConfigError('The JWT API is not enabled for this model: add ApiProvider to PROVIDERS in config/providers.ts, run "node craft api:install", and name the model in DRIVERS.jwt.model of config/api.ts.')
  }
  return api
}
