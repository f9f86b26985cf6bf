/**
 * @module auth/guards/guard
 * The contract every guard keeps. A guard is built per request (one per guard name), so its
 * state is this request's alone. It finds out who is making the request once: `authenticate()`
 * throws a 401 error when nobody is, `check()` answers with a boolean, and both remember the
 * answer for the rest of the request.
 */
import type { AuthUser } from '../types.js'

export interface Guard<User extends AuthUser = AuthUser> {
  /** The name it was configured under (`web`, `jwt`). */
  readonly name: string
  /** The kind of guard (`session`, `jwt`). */
  readonly driverName: string
  /** The user of this request once authenticated (or logged in), else null. */
  readonly user: User | null
  /** True once `authenticate()`, `check()` or a login established a user. */
  readonly isAuthenticated: boolean
  /** True once `authenticate()` or `check()` has run for this request. */
  readonly authenticationAttempted: boolean

  /** The request's user; throws the guard's 401 error (an `UnauthorizedError`) when there is none. */
  authenticate(): Promise<User>
  /** True when the request carries valid credentials for a user; never throws a 401. */
  check(): Promise<boolean>
  /** The authenticated user, or the guard's 401 error when there is none (synchronous). */
  getUserOrFail(): User
  /** Checks the credentials (throttled) and logs the user in: the user, or null. */
  attempt(identifier: unknown, password: unknown): Promise<User | null>
  /** Logs in the user with that primary key: the user, or null when there is none. */
  attemptById(id: unknown): Promise<User | null>
  /** Logs `user` in on this guard (a cookie for `web`, a token for `jwt`). */
  login(user: User): Promise<void>
  /** Ends this request's login server-side. */
  logout(): Promise<void>
}
