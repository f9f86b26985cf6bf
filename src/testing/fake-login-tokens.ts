/**
 * @module testing/fake-login-tokens
 * The web guard's login tokens in memory (token → user id), for guard unit tests.
 */
export class FakeLoginTokens {
  readonly rows = new Map<string, unknown>()

  async create(userId: unknown): Promise<string> {
    const token = `login-token-${this.rows.size}-${'x'.repeat(20)}`
    this.rows.set(token, userId)
    return token
  }

  async findUserId(token: string): Promise<unknown | null> {
    return this.rows.get(token) ?? null
  }

  async revoke(token: string): Promise<void> {
    this.rows.delete(token)
  }
}
