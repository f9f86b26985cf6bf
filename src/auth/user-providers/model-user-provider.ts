/**
 * @module auth/user-providers/model-user-provider
 * The user provider over an `Authenticates` model: users by primary key (a prepared single-row
 * look-up), by login identifier (`findForAuth`: trimmed, case-insensitive), and their password
 * hash in the model's `passwordColumn`.
 */
import type { CredentialUserProvider } from '../types.js'
import type { Model } from '../../database/model.js'

/** The statics of a model made with `Authenticates(Model)`. */
export interface AuthModel {
  authColumn?: string
  passwordColumn?: string
  getTable(): string
  getPrimaryKey(): string
  find(id: unknown): Promise<any>
  findForAuth(value: unknown): Promise<any>
  hydrate(row: Record<string, unknown>): any
  query(): any
}

export type ModelUser = Model & { getKey(): unknown }

export class ModelUserProvider<User extends ModelUser = ModelUser> implements CredentialUserProvider<User> {
  constructor(readonly model: AuthModel) {}

  get passwordColumn(): string {
    return this.model.passwordColumn ?? 'password'
  }

  async findById(id: unknown): Promise<User | null> {
    if (id === null || id === undefined || id === '') return null
    return ((await this.model.find(id)) as User | null) ?? null
  }

  async findForCredentials(identifier: string): Promise<User | null> {
    return ((await this.model.findForAuth(identifier)) as User | null) ?? null
  }

  passwordHashOf(user: User): string | null {
    const value = (user as unknown as Record<string, unknown>)[this.passwordColumn]
    return typeof value === 'string' ? value : null
  }

  async updatePasswordHash(user: User, hash: string): Promise<void> {
    user.forceFill({ [this.passwordColumn]: hash })
    await user.save()
  }
}
