/**
 * @module auth/guards/guard
 * What every guard does. A guard is built per request; `user()` is synchronous and answers
 * what `check()` (run by middleware) or a login established for this request.
 */
export interface Guard<User = any> {
  readonly name: string
  /** Loads the user from the request's credentials, once; null when there are none. */
  check(): Promise<User | null>
  user(): User | null
  setUser(user: User | null): void
  attempt(identifier: unknown, password: unknown): Promise<User | null>
  attemptById(id: unknown): Promise<User | null>
  login(user: User): Promise<void>
  logout(): Promise<void>
}
