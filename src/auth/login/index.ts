/**
 * @module auth/login
 * The one login flow every way in ends with (see flow.ts).
 */
export type { LoginMethod, LoginAttempt, WebLoginOutcome, TokenResponseBody, SecondFactorFailure, SecondFactorFailedEvent } from './types.js'
export { finishWebLogin, finishApiLogin, onLoginCompleted, type LoginCompletedHook } from './flow.js'
export { emitSecondFactorFailed } from './second-factor-failed.js'
