/**
 * @module api/revocation/feature
 * Token epochs as a piece of the API: with `DRIVERS.jwt.revocation = 'epoch'`, every token carries
 * its user's epoch and raising it refuses all their tokens, checked against the epochs this
 * process keeps in memory (see token-epochs). Made once per app; when serving, every raised epoch
 * is read at boot, then followed (Redis pub/sub when REDIS_URL is set, else a database poll), so
 * requests never query; stopped when the app shuts down.
 */
import { defineApiFeature, type ApiOptionsContext } from '../features/contract.js'
import { ApiConfigError } from '../errors.js'
import { connectionOf } from '../../database/app-database.js'
import { TOMBSTONE_TABLE, TokenEpochs } from './token-epochs.js'

/** `DRIVERS.jwt.revocation`: 'epoch', or absent/null (the old behaviour: no epochs). */
function tokenEpochs({ app, settings, jwt }: ApiOptionsContext): TokenEpochs | null {
  const revocation = settings.revocation
  if (revocation === undefined || revocation === null) return null
  const config = jwt()
  if (revocation !== 'epoch') throw new ApiConfigError(`config/api.ts: DRIVERS.jwt.revocation must be 'epoch' or null, got ${JSON.stringify(revocation)}.`)
  const model = config.model
  const lifetime = typeof config.expires === 'number' && config.expires > 0 ? Math.ceil(config.expires * 60) + Number(config.leeway ?? 0) : null
  return new TokenEpochs({
    db: () => connectionOf(app, model.connection),
    table: model.getTable(),
    primaryKey: model.getPrimaryKey(),
    lifetimeSeconds: lifetime,
    redisUrl: process.env.REDIS_URL || null,
    log: app.log,
    // The epoch migration's tombstone table, from the app's migrated tables (read once at boot).
    tombstones: async (trx) => {
      if (!app.has('auth.manager')) return false
      const migrated = app.make('auth.manager').inventory.migrated
      await migrated.ready(trx)
      return migrated.has(TOMBSTONE_TABLE)
    },
  })
}

export const epochsFeature = defineApiFeature<TokenEpochs>({
  name: 'epochs',
  options: tokenEpochs,
  jwt: (epochs) => ({ epochs }),
  async install(app, epochs) {
    app.onShutdown(() => epochs.stop())
    // Serving: every raised epoch is read once, then followed (pub/sub or poll); requests never query.
    if (app.get('app.mode') === 'http') await epochs.start()
  },
  migrations: ['add_token_epoch_to_users'],
})
