/**
 * @module routing/errors
 * Routing's own errors. Problems in route files are FrameworkErrors raised at startup.
 */
import { FrameworkError } from '../support/framework-error.js'

export class RouteDefinitionError extends FrameworkError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('E_ROUTE_DEFINITION', message, options)
  }
}

export class RouteNotFoundByNameError extends FrameworkError {
  constructor(name: string) {
    super('E_ROUTE_NAME_NOT_FOUND', `No route is named "${name}".`)
  }
}
