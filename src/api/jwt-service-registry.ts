/**
 * @module api/jwt-service-registry
 * Where model methods such as `user.generateJwt()` find the app's JwtService (set by ApiProvider).
 */
import type { JwtService } from './jwt-service.js'
import { ApiConfigError } from './errors.js'

let resolver: (() => JwtService) | null = null

export function setJwtServiceResolver(fn: (() => JwtService) | null): void {
  resolver = fn
}

export function getJwtService(): JwtService {
  if (!resolver) throw new ApiConfigError('The JWT API is not enabled: add ApiProvider to PROVIDERS in config/providers.ts and run "node craft api:install".')
  return resolver()
}
