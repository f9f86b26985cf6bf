/**
 * @module auth/guards/web/join-source
 * When the web guard may read a login and its user in one statement (the login joined to the
 * users table by primary key, `LoginTokenRepository.findWithUserNow`/`findWithUser`) instead of
 * the login, then `provider.findById`: the users are a model read by primary key as `Model.find`
 * reads them (no `find`/`findBy` of its own, the default connection), and the token has a length
 * a login token can have.
 */
import { ModelUserProvider, type AuthModel } from '../../user-providers/model-user-provider.js'
import { Model } from '../../../database/model.js'
import type { UserRowSource } from './login-token-repository.js'

export interface JoinSource {
  model: AuthModel
  users: UserRowSource
}

/** The model and its table for a joined read, or undefined when the reads must stay apart. */
export function joinSource(provider: unknown, token: string): JoinSource | undefined {
  if (!(provider instanceof ModelUserProvider)) return undefined
  if (token.length < 20 || token.length > 200) return undefined
  const model = provider.model as AuthModel & { connection?: string; find: unknown; findBy?: unknown }
  if (model.connection !== undefined || model.find !== Model.find || model.findBy !== Model.findBy) return undefined
  return { model, users: { table: model.getTable(), primaryKey: model.getPrimaryKey() } }
}
