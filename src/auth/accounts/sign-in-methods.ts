/**
 * @module auth/accounts/sign-in-methods
 * The account's remaining ways to sign in, as the page after "This wasn't me" lists them: the
 * password (which needs the reset), then every item of the inventory's sign-in kinds (passkeys,
 * the TOTP enrolment, linked identities...) with its creation date. Only labels and dates: never
 * an address, a secret or an id.
 */
import type { HttpContext } from '../../http/context.js'

/** One line of the list. */
export interface SignInMethod {
  /** The inventory kind (`password` for the password). */
  kind: string
  /** What the kind is, in plain words ("Passkey", "Authenticator app"). */
  title: string
  /** The item's own name (a passkey's), or null. */
  label: string | null
  /** `YYYY-MM-DD` (UTC), or null. */
  created: string | null
}

/** The titles of the kinds that give none of their own (`InventoryKind.title`). */
const TITLES: Record<string, string> = {
  password: 'Password',
  passkeys: 'Passkey',
  identities: 'Linked account',
}

/** The remaining sign-in methods of `userId`, read after the revocation committed. */
export async function remainingSignInMethods(ctx: HttpContext, userId: unknown): Promise<SignInMethod[]> {
  const methods: SignInMethod[] = [{ kind: 'password', title: TITLES.password!, label: null, created: null }]
  for (const kind of ctx.auth.manager.inventory.kinds()) {
    if (!kind.signInMethod || kind.name === 'password') continue
    for (const item of await kind.list(userId, ctx.auth.manager.db())) {
      const title = kind.title ?? TITLES[kind.name] ?? kind.name.replaceAll('_', ' ')
      methods.push({
        kind: kind.name,
        title,
        label: item.label && item.label !== title ? item.label : null,
        created: item.createdAt && Number.isFinite(item.createdAt.getTime()) ? item.createdAt.toISOString().slice(0, 10) : null,
      })
    }
  }
  return methods
}
