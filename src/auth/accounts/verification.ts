/**
 * @module auth/accounts/verification
 * Whether a user's address is verified: `email_verified_at` is set.
 */
export function isVerified(user: unknown): boolean {
  if (!user || typeof user !== 'object') return false
  const value = (user as Record<string, unknown>).email_verified_at
  return value !== null && value !== undefined && value !== ''
}
