/**
 * @module auth/accounts/factor-flags
 * Whether a user has each second factor that names a page flag (`SecondFactor.pageFlag`), for the
 * badges and next steps of the account and home pages.
 */
import type { HttpContext } from '../../http/context.js'

/** `{ <pageFlag>: enrolled }` for the second factors of the features that are on. */
export async function factorFlags(ctx: HttpContext, user: { getKey(): unknown } | null): Promise<Record<string, boolean>> {
  const flags: Record<string, boolean> = {}
  for (const factor of ctx.auth.manager.secondFactors) {
    if (factor.pageFlag) flags[factor.pageFlag] = user ? await factor.enrolled(user.getKey()) : false
  }
  return flags
}
