/**
 * @module auth/guards/base-guard
 * What every guard shares: the per-request user, and `attempt`/`attemptById` on top of the
 * guard's own `login` (credentials always go through the throttled CredentialVerifier).
 */
import type { HttpContext } from '../../http/context.js'
import type { CredentialVerifier } from '../credential-verifier.js'
import type { Guard } from './guard.js'

export abstract class BaseGuard implements Guard {
  /** `undefined` until `check()` or a login has run for this request. */
  protected current: any | null | undefined = undefined

  constructor(
    readonly name: string,
    protected readonly ctx: HttpContext,
    protected readonly model: any,
    protected readonly verifier: CredentialVerifier,
    /** Names the entry point in logs and throttling diagnostics (`web`, `api`). */
    private readonly channel: string,
  ) {}

  abstract check(): Promise<any | null>
  abstract login(user: any): Promise<void>
  abstract logout(): Promise<void>

  user(): any | null {
    return this.current ?? null
  }

  setUser(user: any | null): void {
    this.current = user
  }

  async attempt(identifier: unknown, password: unknown): Promise<any | null> {
    const user = await this.verifier.verify(this.model, identifier, password, this.ctx.request.ip(), this.channel)
    if (!user) return null
    await this.login(user)
    return user
  }

  async attemptById(id: unknown): Promise<any | null> {
    if (id === null || id === undefined || id === '') return null
    const user = await this.model.find(id)
    if (!user) return null
    await this.login(user)
    return user
  }
}
