/**
 * @module auth/organizations/ability-source
 * Where `can:<ability>` finds role abilities: the sources registered on the app (the organisations
 * feature registers the current membership's). A source answers the abilities of the request's
 * user, or null when it has nothing to say (no current organisation).
 * TEMPORARY (until the authorization slice lands on main): its `registerAbilitySource` replaces this file.
 */
import type { Application } from '../../foundation/application.js'
import type { HttpContext } from '../../http/context.js'

export type AbilitySource = (ctx: HttpContext) => Promise<readonly string[] | null>

const SOURCES = new WeakMap<Application, AbilitySource[]>()

export function registerAbilitySource(app: Application, source: AbilitySource): void {
  SOURCES.set(app, [...(SOURCES.get(app) ?? []), source])
}

/** The registered sources of `app`, in order. */
export function abilitySources(app: Application): readonly AbilitySource[] {
  return SOURCES.get(app) ?? []
}
