/**
 * @module auth/middleware/assert-guard
 * The startup check of `guard:<name>` and `auth:<name>`: the guard must exist.
 */
import type { Application } from '../../foundation/application.js'
import { RouteDefinitionError } from '../../routing/errors.js'

export function assertGuard(app: Application, where: string, name: string | undefined): void {
  if (name === undefined || name === '') return
  let known: string[]
  try {
    known = app.make('auth').guardNames
  } catch (error) {
    throw new RouteDefinitionError(`${where} names the guard "${name}", but auth is not configured: ${(error as Error).message}`)
  }
  if (!known.includes(name)) {
    const hint = name === 'jwt' ? ' (the jwt guard comes with ApiProvider in config/providers.ts)' : ''
    throw new RouteDefinitionError(`${where} names an unknown guard "${name}"; known guards: ${known.join(', ')}${hint}.`)
  }
}
