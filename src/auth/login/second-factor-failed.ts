/**
 * @module auth/login/second-factor-failed
 * A refused second-factor answer, reported the same way whichever feature's factor it was: the
 * event the second step's feature names (`secondStep.failedEvent`, kept on the manager at boot),
 * so a factor's feature emits it without naming the feature that serves the second step.
 */
import type { HttpContext } from '../../http/context.js'
import { eventBase } from '../events.js'
import type { AuthUser } from '../types.js'

/** Emits the second step's failure event for `user` (null: no account known), answered with `method`; nothing with no second step. */
export function emitSecondFactorFailed(ctx: HttpContext, guard: string, user: AuthUser | null, method: string): void {
  const manager = ctx.auth.manager
  const name = manager.secondStepFailedEvent
  if (name !== null) manager.events.emit(name, { ...eventBase(ctx, guard, user), method })
}
