/**
 * Black-box: the inventory of what authenticates a user covers every table the framework creates
 * for a user. A fresh SQLite app gets every framework migration stub (`stubs/migrations`: the auth
 * and account tables, two factors and passkeys, the JWT API with the table store and epochs,
 * personal access tokens) with every feature on; each table with a `user_id` column or a foreign
 * key to `users` must be claimed by an inventory kind (`InventoryKind.tables`), or a revocation
 * ("This wasn't me", a reset, deletion) would leave what it holds alive. The audit log is the one
 * exception: it records what happened and lets nobody in. Also: every kind ends on deletion, and
 * the documented reasons end what SPEC'd kinds say.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { newApp, migrate, ROOT, type TestApp } from '../helpers/app-harness.js'
import { applyApiSteps, applyAuthSteps } from '../helpers/seed-steps.js'
import { testDriver } from '../helpers/databases.js'

/**
 * Tables that reference a user but hold no way in: the audit log, and organisation memberships
 * (which authenticate nobody; deletion removes them, under the last-owner rule).
 */
const NOT_A_WAY_IN = ['auth_events', 'organization_members']

const APP_TEST = `import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { TestClient } from 'trowel/testing'
import { db } from 'trowel'

let client: TestClient
before(async () => { client = await TestClient.create() })
after(async () => { await client.close() })

test('every table referencing a user is claimed by an inventory kind', async () => {
  const tables = (await db().raw("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")).map((r: { name: string }) => r.name)
  const referencing: string[] = []
  for (const table of tables) {
    if (table === 'users') continue
    const columns = (await db().raw('PRAGMA table_info(' + JSON.stringify(table) + ')')).map((c: { name: string }) => c.name)
    const keys = (await db().raw('PRAGMA foreign_key_list(' + JSON.stringify(table) + ')')).map((k: { table: string }) => k.table)
    if (columns.includes('user_id') || keys.includes('users')) referencing.push(table)
  }
  const inventory = client.app.make('auth.manager').inventory
  const claimed = new Map<string, string[]>()
  for (const kind of inventory.kinds()) for (const table of kind.tables ?? []) claimed.set(table, [...(claimed.get(table) ?? []), kind.name])
  const exempt = ${JSON.stringify(NOT_A_WAY_IN)}
  const unclaimed = referencing.filter((t) => !claimed.has(t) && !exempt.includes(t))
  console.log('INVENTORY ' + JSON.stringify({ referencing, kinds: inventory.kinds().map((k: { name: string }) => k.name) }))
  assert.deepEqual(unclaimed, [], 'tables holding something of a user that no inventory kind ends: ' + unclaimed.join(', '))
  for (const table of ['login_tokens', 'remember_tokens', 'user_tokens', 'passkeys', 'two_factor_recovery_codes', 'auth_challenges', 'api_tokens', 'personal_access_tokens', 'token_epoch_deletions', 'organization_invitations']) {
    assert.ok(referencing.includes(table), table + ' was not created: the migrations did not all run')
  }
})

test('the kinds end what each revocation is documented to end', () => {
  const inventory = client.app.make('auth.manager').inventory
  const endsOn = (reason: string) => inventory.kinds().filter((k: any) => k.endsOn.has(reason)).map((k: any) => k.name).sort()
  const all = inventory.kinds().map((k: any) => k.name).sort()
  assert.deepEqual(endsOn('delete'), all, 'deletion ends every kind')
  assert.deepEqual(endsOn('secure'), all.filter((k: string) => k !== 'passkeys' && k !== 'totp' && k !== 'social_identities'))
  assert.deepEqual(endsOn('password_reset'), ['api_tokens', 'device_cookies', 'email_changes', 'email_logins', 'login_challenges', 'logins', 'remember_tokens', 'social_pending', 'trusted_devices'])
  assert.deepEqual(endsOn('password_change'), ['api_tokens', 'email_changes', 'email_logins', 'login_challenges', 'logins', 'remember_tokens', 'social_pending'])
  assert.deepEqual(endsOn('logout_others'), ['api_tokens', 'email_changes', 'login_challenges', 'logins', 'remember_tokens', 'social_pending', 'trusted_devices'])
  const ways = inventory.kinds().filter((k: any) => k.signInMethod).map((k: any) => k.name).sort()
  assert.deepEqual(ways, ['passkeys', 'social_identities', 'totp'])
  assert.deepEqual(inventory.kinds().filter((k: any) => k.revokeCreatedSince).map((k: any) => k.name).sort(), ['organization_invitations', 'passkeys', 'social_identities', 'totp'])
  assert.throws(() => inventory.register({ ...inventory.kinds()[0] }), /already has a kind named/)
})
`

describe('the inventory of what authenticates a user', { skip: testDriver() !== 'sqlite' && 'introspects SQLite (the tables are the same on every database)' }, () => {
  let app: TestApp

  before(async () => {
    app = await newApp()
    applyAuthSteps(app)
    applyApiSteps(app)
    for (const args of [['--store', 'table'], ['--revocation', 'epoch']]) {
      const r = app.craft('api:install', ...args)
      assert.equal(r.code, 0, r.stdout + r.stderr)
    }
    // Every framework migration stub, whichever command normally writes it.
    const have = readdirSync(join(app.dir, 'databases', 'migrations')).join('\n')
    for (const stub of readdirSync(join(ROOT, 'stubs', 'migrations')).filter((f) => f.endsWith('.ts'))) {
      const name = stub.replace(/\.ts$/, '')
      if (have.includes(`_${name}.`)) continue
      const r = app.craft('migration', name)
      assert.equal(r.code, 0, r.stdout + r.stderr)
    }
    assert.match(app.read('config/auth.ts'), /features: \[[^\]]*'two_factor'[^\]]*'passkeys'/)
    migrate(app)
    app.write('tests/inventory.test.ts', APP_TEST)
  })
  after(() => app?.cleanup())

  it('claims every table that references a user, and each reason ends the documented kinds', () => {
    const run = app.craft('test', 'tests/inventory.test.ts')
    assert.equal(run.code, 0, run.stdout + run.stderr)
    assert.match(run.stdout + run.stderr, /pass 2\b/)
    const found = /INVENTORY (\{.*\})/.exec(run.stdout + run.stderr)
    assert.ok(found, run.stdout)
    console.log(`# ${found[1]}`)
  })
})
