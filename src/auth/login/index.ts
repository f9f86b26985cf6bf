/**
 * @module auth/login
 * The one login flow every way in ends with (see flow.ts).
 */
export type { LoginMethod, LoginAttempt, WebLoginOutcome, TokenResponseBody } from './types.js'
export { finishWebLogin, finishApiLogin, onLoginCompleted, type LoginCompletedHook } from './flow.js'
