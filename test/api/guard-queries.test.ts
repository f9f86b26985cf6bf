/**
 * A `guard:jwt` request in the `api` stack (JWTAuthenticationMiddleware, LoadUserMiddleware,
 * GuardMiddleware) reads the user at most once, by primary key, and never scans `users` — with
 * `authenticates` false and true. Counted from inside the app (an app test run by
 * `node craft test`): every prepared single-row look-up and every other query the request makes.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { newApp, type TestApp } from '../helpers/app-harness.js'
import { applyApiSteps, applyAuthSteps, setJwtConfig } from '../helpers/seed-steps.js'

const API_ROUTES = `import { Route } from 'trowel'

export const ROUTES = [
  Route.get('/guarded', ({ request, auth }) => ({ loaded: request.user()?.email ?? null, guard: auth.user()?.email ?? null })).middleware(['guard:jwt']),
]
`

const APP_TEST = `import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { TestClient } from 'trowel/testing'
import { db } from 'trowel'
import { User } from '../app/models/User.js'

let client: TestClient
before(async () => { client = await TestClient.create() })
after(async () => { await client.close() })

test('a guard:jwt request reads the user once, by primary key', async () => {
  const email = 'q' + Date.now().toString(36) + '@example.com'
  const user = await User.create({ name: 'Q', email, password: await client.hashPassword('correct horse battery staple') })
  await client.withToken(user)
  const lookups: string[] = []
  const queries: string[] = []
  const prepared = client.app.make('db.manager').prepared()
  // Every single-row look-up goes through lookup() (findBy() too).
  const lookup = prepared.lookup.bind(prepared)
  prepared.lookup = (table: string, column: string, value: unknown) => { lookups.push(table + '.' + column); return lookup(table, column, value) }
  // The background poll of raised token epochs (not a request's query) is left out.
  const listener = (q: { sql: string }) => { if (!/token_epoch_at. >|token_epoch_deletions/.test(q.sql)) queries.push(q.sql) }
  db().on('query', listener)
  const response = await client.get('/api/guarded')
  db().removeListener('query', listener)
  response.assertOk()
  assert.deepEqual(response.json(), { loaded: email, guard: email })
  assert.deepEqual(lookups, ['users.id'], 'one look-up, by primary key')
  // On SQLite the look-up is a prepared statement outside knex; elsewhere it is knex's one query.
  assert.ok(queries.length <= (process.env.DB_CONNECTION && process.env.DB_CONNECTION !== 'sqlite' ? 1 : 0), queries.join('; '))
  for (const sql of queries) assert.match(sql, /where .id. = (\\?|\\$1)/i)
})
`

describe('guard:jwt: one primary-key look-up per request', () => {
  let app: TestApp
  before(async () => {
    app = await newApp()
    applyAuthSteps(app)
    applyApiSteps(app, { apiRoutes: API_ROUTES })
    app.write('tests/queries.test.ts', APP_TEST)
  })
  after(() => app.cleanup())

  for (const authenticates of ['false', 'true']) {
    it(`authenticates: ${authenticates}`, () => {
      setJwtConfig(app, { authenticates })
      const run = app.craft('test', 'tests/queries.test.ts')
      assert.equal(run.code, 0, run.stdout + run.stderr)
      assert.match(run.stdout + run.stderr, /pass 1\b/)
    })
  }
})
