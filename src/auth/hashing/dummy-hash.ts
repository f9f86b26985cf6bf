/**
 * @module auth/hashing/dummy-hash
 * A fixed argon2id hash with the default (OWASP) parameters, of 32 random bytes that were thrown
 * away. `Hasher.dummyVerify` checks passwords against it so that a login for an unknown e-mail
 * costs exactly the work of a wrong password; no password can match it in practice, and
 * `dummyVerify` returns `false` whatever the outcome.
 */
export const DUMMY_ARGON2ID_HASH =
  '$argon2id$v=19$m=19456,t=2,p=1$hTX72Iyf5tNAF16qJkPlfA$R1bvabBJBBrz7rbBRHVqvt8o6EQhVIfq5SZYuaCe+A4'
