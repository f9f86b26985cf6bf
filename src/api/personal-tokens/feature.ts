/**
 * @module api/personal-tokens/feature
 * Personal access tokens as a piece of the API: the tokens page (`tokensPage: false` leaves it
 * out), the `api.personal_tokens` repository (beside the users, on the model's connection), the
 * `personal_tokens` inventory kind, the `ability:<name>` route middleware, and
 * `DRIVERS.jwt.abilities`.
 */
import { databaseOf } from '../../database/app-database.js'
import { defineApiFeature } from '../features/contract.js'
import { jwtDriverConfig } from '../api-config.js'
import { AbilityMiddleware } from '../middleware/ability-middleware.js'
import * as errors from './abilities.js'
import { personalTokensKind } from './inventory.js'
import { personalTokenOptions, type PersonalTokenOptions } from './options.js'
import { PersonalTokenRepository } from './repository.js'
import { tokensPageRoutes } from './routes.js'

export const personalTokensFeature = defineApiFeature<PersonalTokenOptions>({
  name: 'personal_tokens',
  options: ({ settings }) => personalTokenOptions(settings),
  routes: tokensPageRoutes,
  register(app) {
    app.singleton('api.personal_tokens', () => new PersonalTokenRepository({ database: () => databaseOf(app), connection: jwtDriverConfig(app).model?.connection }))
  },
  inventory: () => [personalTokensKind()],
  // `ability:<name>` works without a Kernel.ts entry; an app's own `ability` stack wins.
  middleware: { ability: [AbilityMiddleware] },
  errors,
  migrations: ['create_personal_access_tokens_table'],
  // Tokens past their `expires_at` (those without one live until revoked, and go when revoked).
  prune: [{ table: 'personal_access_tokens', expired: (q, now) => q.whereNotNull('expires_at').where('expires_at', '<=', now) }],
})
