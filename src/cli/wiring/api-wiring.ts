/**
 * @module cli/wiring/api-wiring
 * `craft api:install --wire`: every step of turning on the JWT API (docs/jwt-api.md), made on the
 * app's files: ApiProvider in config/providers.ts, routes/api.ts, the `routes.api.location`
 * binding and the `api`/`guard`/`ability` stacks in Kernel.ts, AuthenticatesTokens on the User model, the
 * token column's migration, and `...Api.routes()` in routes/web.ts. Each step is skipped when it
 * is already done; a file that no longer has the expected shape is left alone and reported.
 */
import { existsSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { migrationFileName, nextMigrationDate } from '../../database/migration-stubs.js'
import { editFile, insertFirst, withImport, type EditOutcome } from './file-edits.js'

const DEFAULT_API_ROUTES = `import { Route } from 'trowel'

/** The API's routes: served under /api, in the \`api\` stack (a valid Bearer token is required). */
export const ROUTES = [
  Route.get('/me', ({ request }) => ({ data: request.user() })).name('api.me'),
]
`

const TOKEN_MIGRATION = `import { Migration } from 'trowel'

/** The users' current API token, as its SHA-256 (the JWT facility's single-column store). */
export default class AddApiTokenUsers extends Migration {
  async up() {
    if (await this.schema.hasColumn('users', 'api_token')) return
    await this.schema.table('users', (table) => {
      table.string('api_token').nullable()
    })
  }

  async down() {
    if (!(await this.schema.hasColumn('users', 'api_token'))) return
    await this.schema.table('users', (table) => {
      table.dropColumn('api_token')
    })
  }
}
`

export function wireApi(root: string): EditOutcome[] {
  const outcomes: EditOutcome[] = []
  outcomes.push(
    editFile(root, 'config/providers.ts', (t) => {
      if (/\bApiProvider\b/.test(t)) return null
      const added = insertFirst(t, /export const PROVIDERS(?:\s*:\s*[^=]+)?\s*=\s*\[/, 'ApiProvider,', 'export const PROVIDERS = [')
      return typeof added === 'string' ? withImport(added, "import { ApiProvider } from 'trowel/api'") : added
    }),
  )
  outcomes.push(editFile(root, 'routes/api.ts', () => null, { create: DEFAULT_API_ROUTES }))
  outcomes.push(
    editFile(root, 'Kernel.ts', (t) => {
      let out = t
      if (!/['"]routes\.api\.location['"]/.test(out)) {
        const web = /this\.application\.bind\(\s*['"]routes\.location['"]\s*,\s*['"][^'"]+['"]\s*\)/.exec(out)
        if (!web) return { refused: `it has no "this.application.bind('routes.location', 'routes/web')" line` }
        const at = web.index + web[0].length
        out = `${out.slice(0, at)}\n    this.application.bind('routes.api.location', 'routes/api')${out.slice(at)}`
      }
      if (!/^\s*api\s*:/m.test(out)) {
        const stacks = insertFirst(out, /routeMiddleware(?:\s*:\s*[^=]+)?\s*=\s*\{/, 'api: [JWTAuthenticationMiddleware, LoadUserMiddleware],\n    guard: [GuardMiddleware],\n    ability: [AbilityMiddleware],', 'routeMiddleware = {')
        if (typeof stacks !== 'string') return stacks
        out = withImport(stacks, "import { JWTAuthenticationMiddleware, LoadUserMiddleware, GuardMiddleware, AbilityMiddleware } from 'trowel/api'")
      }
      return out === t ? null : out
    }),
  )
  outcomes.push(
    editFile(root, 'app/models/User.ts', (t) => {
      if (/\bAuthenticatesTokens\b/.test(t)) return null
      if (!t.includes('extends Authenticates(Model)')) return { refused: 'its class no longer "extends Authenticates(Model)"' }
      return withImport(t.replace('extends Authenticates(Model)', 'extends AuthenticatesTokens(Authenticates(Model))'), "import { AuthenticatesTokens } from 'trowel/api'")
    }),
  )
  const migrations = join(root, 'databases', 'migrations')
  const existing = existsSync(migrations) ? readdirSync(migrations) : []
  if (existing.some((f) => /_add_api_token_users\.[a-z]+$/.test(f))) {
    outcomes.push({ file: 'databases/migrations/*_add_api_token_users.ts', result: 'present' })
  } else if (!existsSync(migrations)) {
    outcomes.push({ file: 'databases/migrations', result: 'refused', why: 'the folder does not exist' })
  } else {
    const name = migrationFileName('add_api_token_users', nextMigrationDate(existing))
    writeFileSync(join(migrations, name), TOKEN_MIGRATION)
    outcomes.push({ file: `databases/migrations/${name}`, result: 'changed' })
  }
  outcomes.push(
    editFile(root, 'routes/web.ts', (t) => {
      if (/\bApi\.routes\(/.test(t)) return null
      const added = insertFirst(t, /export const ROUTES(?:\s*:\s*[^=]+)?\s*=\s*\[/, '...Api.routes(),', 'export const ROUTES = [')
      return typeof added === 'string' ? withImport(added, "import { Api } from 'trowel/api'") : added
    }),
  )
  return outcomes
}
