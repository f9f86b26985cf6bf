/**
 * @module testing/fake-login-tokens
 * The web guard's login tokens in memory (token → user id), for guard unit tests.
 */
export class FakeLoginTokens {
  readonly rows = new Map<string, unknown>()
  /** The digest each `findUserId` call was given (undefined: the caller left the hashing to it). */
  readonly digests: (string | undefined)[] = []

  async create(userId: unknown): Promise<string> {
    const token = `login-token-${this.rows.size}-${'x'.repeat(20)}`
    this.rows.set(token, userId)
    return token
  }

  async findUserId(token: string, digest?: string): Promise<unknown | null> {
    this.digests.push(digest)
    return this.rows.get(token) ?? null
  }

  async revoke(token: string): Promise<void> {
    this.rows.delete(token)
  }
}
