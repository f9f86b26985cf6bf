/**
 * @module auth/types
 * The shapes the guards work with: the user they authenticate and the providers that find it.
 * A guard never touches a model or a table itself; it asks its user provider, so guards can be
 * tested with an in-memory provider and other stores can be plugged in.
 */

/** What a guard needs of a user: its primary key. Models made with `Authenticates` qualify. */
export interface AuthUser {
  getKey(): unknown
}

/** Finds users by primary key: the only look-up a guard makes per request. */
export interface UserProvider<User extends AuthUser = AuthUser> {
  /** The user with that primary key, or null (an empty or malformed id never matches). */
  findById(id: unknown): Promise<User | null>
}

/** A user provider that also checks passwords (web logins and the API's token route). */
export interface CredentialUserProvider<User extends AuthUser = AuthUser> extends UserProvider<User> {
  /** The user whose login identifier (the model's `authColumn`) is `identifier`, or null. */
  findForCredentials(identifier: string): Promise<User | null>
  /** The stored password hash of `user`, or null when it has none. */
  passwordHashOf(user: User): string | null
  /** Stores a new hash for `user` (an imported bcrypt hash upgraded to argon2id). */
  updatePasswordHash(user: User, hash: string): Promise<void>
}
