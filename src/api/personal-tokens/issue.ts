/**
 * @module api/personal-tokens/issue
 * Creating a personal access token for a user, with its `auth:token_issued` event (`kind:
 * 'personal'`, the token's name and abilities; never its value). From a request the event carries
 * the request's IP and user agent; from `user.createToken()` or `craft token:create` it has none.
 */
import type { HttpContext } from '../../http/context.js'
import type { Emitter } from '../../events/emitter.js'
import { eventBase, type AuthEventBase } from '../../auth/events.js'
import type { AuthUser } from '../../auth/types.js'
import type { CreateTokenOptions, NewPersonalToken, PersonalToken, PersonalTokenRepository } from './repository.js'

/** The inventory kind of personal access tokens (the `item` of `auth:token_created`). */
export const PERSONAL_TOKENS_KIND = 'personal_tokens'

/** The event fields of a personal access token (never its value). */
export function personalEventDetail(token: PersonalToken): { kind: 'personal'; name: string; abilities: string } {
  return { kind: 'personal', name: token.name, abilities: token.abilities.join(',') }
}

/** The base of an event raised outside a request (the console, a queued job). */
export function requestlessEventBase<U extends AuthUser | null>(user: U, guard = 'jwt'): AuthEventBase & { user: U } {
  return { user, guard, ip: '', userAgent: null, requestId: '', at: new Date() }
}

export interface IssueOptions {
  /** The request creating it (its IP and user agent go into the event). */
  ctx?: HttpContext
  /** Where the event goes; default `ctx.app.events`, else none. */
  emitter?: Pick<Emitter, 'emit'>
}

/** Creates the token and emits `auth:token_issued`. */
export async function issuePersonalToken(
  repository: PersonalTokenRepository,
  user: AuthUser,
  name: unknown,
  options: CreateTokenOptions = {},
  via: IssueOptions = {},
): Promise<NewPersonalToken> {
  const created = await repository.create(user.getKey(), name, options)
  const base = via.ctx ? eventBase(via.ctx, 'jwt', user) : requestlessEventBase(user)
  const emitter = via.emitter ?? via.ctx?.app.events
  emitter?.emit('auth:token_issued', { ...base, ...personalEventDetail(created) })
  return created
}
