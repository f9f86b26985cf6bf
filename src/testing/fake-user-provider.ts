/**
 * @module testing/fake-user-provider
 * In-memory users for guard tests: implements the JWT guard's user provider (and so the web
 * guard's), counts every look-up, and stores passwords as `plain:<password>` for a fake hasher
 * or real hashes for a real one.
 */
import type { JwtUserProvider, TokenRecord } from '../api/guards/jwt/types.js'

export class FakeUser {
  constructor(
    readonly id: number,
    public email: string,
    public password: string | null,
    public token: string | null = null,
  ) {}

  getKey(): number {
    return this.id
  }
}

export class FakeUserProvider implements JwtUserProvider<FakeUser> {
  readonly users = new Map<number, FakeUser>()
  /** Every look-up made, by kind: what a guard test asserts on. */
  readonly lookups = { byId: 0, byCredentials: 0 }

  add(id: number, email: string, password: string | null = null): FakeUser {
    const user = new FakeUser(id, email.trim().toLowerCase(), password)
    this.users.set(id, user)
    return user
  }

  async findById(id: unknown): Promise<FakeUser | null> {
    this.lookups.byId++
    return this.users.get(Number(id)) ?? null
  }

  async findRecord(id: string): Promise<TokenRecord<FakeUser> | null> {
    const user = await this.findById(id)
    return user ? { digest: user.token, user: () => user } : null
  }

  async findForCredentials(identifier: string): Promise<FakeUser | null> {
    this.lookups.byCredentials++
    const wanted = identifier.trim().toLowerCase()
    return [...this.users.values()].find((u) => u.email === wanted) ?? null
  }

  passwordHashOf(user: FakeUser): string | null {
    return user.password
  }

  async updatePasswordHash(user: FakeUser, hash: string): Promise<void> {
    user.password = hash
  }

  async storeDigest(user: FakeUser, digest: string | null): Promise<void> {
    user.token = digest
  }

  async replaceDigest(id: string, oldDigest: string, newDigest: string): Promise<boolean> {
    const user = this.users.get(Number(id))
    if (!user || user.token !== oldDigest) return false
    user.token = newDigest
    return true
  }

  async clearDigestIf(id: string, digest: string): Promise<boolean> {
    const user = this.users.get(Number(id))
    if (!user || user.token !== digest) return false
    user.token = null
    return true
  }

  /** Clears user `id`'s token (the database argument is ignored: the users live in memory). */
  async clearDigest(id: unknown): Promise<number> {
    const user = this.users.get(Number(id))
    if (!user || user.token === null) return 0
    user.token = null
    return 1
  }
}
