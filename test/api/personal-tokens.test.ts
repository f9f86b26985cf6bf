/**
 * Black-box: personal access tokens. `trw_<id>_<secret><checksum>` with an offline-verifiable
 * checksum; stored as SHA-256 only; accepted by the `api` stack as Bearer tokens; `ability:`
 * middleware (403 insufficient_scope); expiry; the /account/tokens page (create shown once, list,
 * revoke with CSRF, only one's own tokens); last_used_at written at most once a minute under
 * concurrency; `craft token:create`; kept by a password change, "log out other devices" and a
 * reset, ended by deleting the account; audited without the secret. (Who may create one, the
 * notice, the default lifetime and revoke-all: personal-token-safety.test.ts.)
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import type { Knex } from 'knex'
import { newApp, migrate, type TestApp, type Server } from '../helpers/app-harness.js'
import { Client } from '../helpers/http-client.js'
import { applyApiSteps, applyAuthSteps } from '../helpers/seed-steps.js'
import { appDb, registerUser, getToken, PASSWORD } from '../helpers/security-kit.js'
import { testDriver } from '../helpers/databases.js'

const ALICE = 'alice.pat@example.test'
const BOB = 'bob.pat@example.test'
const TOKEN_SHAPE = /^trw_\d+_[A-Za-z0-9]{40}[A-Za-z0-9]{6}$/
const FIND_TOKEN = /trw_\d+_[A-Za-z0-9]{46}/g

/** The documented checksum, re-implemented as a secret scanner would: CRC-32 → base62, 6 chars. */
function scannerAccepts(token: string): boolean {
  const m = /^(trw_\d+_[A-Za-z0-9]{40})([A-Za-z0-9]{6})$/.exec(token)
  if (!m) return false
  let crc = 0xffffffff
  for (const byte of Buffer.from(m[1]!, 'ascii')) {
    crc ^= byte
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1
  }
  let n = (crc ^ 0xffffffff) >>> 0
  const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
  let out = ''
  for (let i = 0; i < 6; i++) {
    out = alphabet[n % 62] + out
    n = Math.floor(n / 62)
  }
  return out === m[2]
}

const body = (r: Response): Promise<any> => r.json()
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex')

const API_ROUTES = `import { Route } from 'trowel'

export const ROUTES = [
  Route.get('/me', ({ request }) => ({ data: request.user() })).name('api.me'),
  Route.get('/whoami', ({ auth }) => ({ data: auth.user() })).middleware(['guard:jwt']),
  Route.get('/abilities', ({ state }) => ({ data: state.abilities })),
  Route.get('/posts', () => ({ data: [] })).middleware(['ability:posts:read']),
  Route.post('/posts', () => ({ data: { created: true } })).middleware(['ability:posts:write']),
  Route.delete('/posts', () => ({ data: { deleted: true } })).middleware(['ability:posts:read,posts:delete']),
]
`

describe('personal access tokens', () => {
  let app: TestApp
  let server: Server
  let alice: Client
  let bob: Client
  let db: Knex

  const api = (token: string, path = '/api/me', method = 'GET') => fetch(`${server.url}${path}`, { method, headers: { authorization: `Bearer ${token}` } })

  /** Creates a token on the page as `client`; returns the value the next page view shows. */
  async function createOnPage(client: Client, fields: Record<string, string>): Promise<string> {
    const r = await client.submit('/account/tokens', '/account/tokens', fields)
    assert.equal(r.status, 302, r.text)
    assert.equal(r.location, '/account/tokens')
    const page = await client.get('/account/tokens')
    assert.equal(page.status, 200)
    const found = page.text.match(FIND_TOKEN) ?? []
    assert.equal(found.length, 1, 'the page shows exactly one token value, the new one')
    return found[0]!
  }

  function craftToken(...args: string[]): string {
    const r = app.craft('token:create', ...args)
    assert.equal(r.code, 0, r.stderr + r.stdout)
    return r.stdout.trim()
  }

  before(async () => {
    app = await newApp({ env: { MAIL_DRIVER: 'log' } })
    applyAuthSteps(app)
    applyApiSteps(app, { apiRoutes: API_ROUTES })
    app.edit('config/auth.ts', (t) => t.replace(/\blogin: \{ attempts: [^}]*\}/, 'login: null').replace(/\bip: \{ attempts: [^}]*\}/, 'ip: null'))
    migrate(app)
    server = await app.serve()
    alice = await registerUser(server.url, ALICE, 'Alice')
    bob = await registerUser(server.url, BOB, 'Bob')
    db = appDb(app)
    // Creating a token needs a verified address and a recently typed password.
    await db('users').whereIn('email', [ALICE, BOB]).update({ email_verified_at: new Date() })
    for (const client of [alice, bob]) {
      const confirmed = await client.submit('/confirm-password', '/confirm-password', { password: PASSWORD })
      assert.equal(confirmed.status, 302, confirmed.text)
    }
  })
  after(async () => {
    await db?.destroy()
    await app.cleanup()
  })

  it('craft api:install wrote the table migration; craft migration create_personal_access_tokens_table writes the same', () => {
    const files = app.craft('migrate:status').stdout
    assert.match(files, /create_personal_access_tokens_table/)
    const r = app.craft('migration', 'create_personal_access_tokens_table')
    assert.equal(r.code, 0, r.stderr)
    const name = /Created (databases\/migrations\/\S+_create_personal_access_tokens_table\.ts)/.exec(r.stdout)![1]!
    assert.match(app.read(name), /createTable\('personal_access_tokens'/)
    rmSync(join(app.dir, name)) // a second copy is not wanted by this suite's database
  })

  it('the page renders; a created token is shown once, matches the format, passes an offline checksum and is stored only as SHA-256', async () => {
    const page = await alice.get('/account/tokens')
    assert.equal(page.status, 200)
    assert.match(page.text, /<h1>API tokens<\/h1>/)
    assert.match(page.text, /name="__token"/)
    const token = await createOnPage(alice, { name: 'CI deploy', abilities: 'posts:read', expires: '30' })
    assert.match(token, TOKEN_SHAPE)
    assert.ok(scannerAccepts(token), 'the checksum is verifiable offline')
    const reload = await alice.get('/account/tokens')
    assert.equal(reload.status, 200)
    assert.doesNotMatch(reload.text, FIND_TOKEN, 'a reload does not show it again')
    assert.match(reload.text, /CI deploy/)
    assert.match(reload.text, /posts:read/)
    const rows = await db('personal_access_tokens').select('*')
    const id = Number(/^trw_(\d+)_/.exec(token)![1])
    const row = rows.find((r) => Number(r.id) === id)
    assert.ok(row)
    assert.equal(row.token_hash, sha256(token))
    assert.ok(!JSON.stringify(rows).includes(token.slice(-46, -6)), 'the secret is nowhere in the table')
    assert.ok(row.expires_at, 'expiry of 30 days stored')
    const days = (new Date(row.expires_at).getTime() - Date.now()) / 86_400_000
    assert.ok(days > 29.9 && days < 30.1, `expires in ${days} days`)
  })

  it('the api stack accepts it as Bearer: request.user() and auth.user() are its owner', async () => {
    const token = craftToken(ALICE, '--name', 'me', '--abilities', 'posts:read')
    const me = await api(token)
    assert.equal(me.status, 200)
    assert.equal((await body(me)).data.email, ALICE)
    const whoami = await api(token, '/api/whoami')
    assert.equal((await body(whoami)).data.email, ALICE)
    assert.deepEqual((await body(await api(token, '/api/abilities'))).data, ['posts:read'])
  })

  it('a flipped checksum, secret or id character, and an unknown token: 401 invalid_token', async () => {
    const token = craftToken(ALICE, '--name', 'flip')
    const flip = (i: number) => token.slice(0, i) + (token[i] === 'A' ? 'B' : 'A') + token.slice(i + 1)
    for (const bad of [flip(token.length - 1), flip(token.length - 10), token.replace(/^trw_(\d+)_/, (_m, id) => `trw_${Number(id) + 1000}_`), 'trw_1_' + 'a'.repeat(46)]) {
      const r = await api(bad)
      assert.equal(r.status, 401, bad)
      assert.equal((await body(r)).code, 'E_TOKEN_INVALID')
      assert.equal(r.headers.get('www-authenticate'), 'Bearer realm="api", error="invalid_token"')
    }
    assert.equal((await api(token)).status, 200)
  })

  it('ability: a read-only token gets 403 insufficient_scope on a write route, a JWT passes; ability:a,b needs both', async () => {
    const read = craftToken(ALICE, '--name', 'reader', '--abilities', 'posts:read')
    assert.equal((await api(read, '/api/posts')).status, 200)
    const denied = await api(read, '/api/posts', 'POST')
    assert.equal(denied.status, 403)
    assert.equal((await body(denied)).code, 'E_FORBIDDEN')
    assert.equal(denied.headers.get('www-authenticate'), 'Bearer realm="api", error="insufficient_scope", scope="posts:write"')
    const both = await api(read, '/api/posts', 'DELETE')
    assert.equal(both.status, 403)
    assert.equal(both.headers.get('www-authenticate'), 'Bearer realm="api", error="insufficient_scope", scope="posts:delete"')
    const all = craftToken(ALICE, '--name', 'admin', '--abilities', 'posts:read,posts:delete')
    assert.equal((await api(all, '/api/posts', 'DELETE')).status, 200)
    const star = craftToken(ALICE, '--name', 'star', '--abilities', '*')
    assert.equal((await api(star, '/api/posts', 'POST')).status, 200)
    const none = craftToken(ALICE, '--name', 'none')
    assert.equal((await api(none, '/api/me')).status, 200, 'no abilities: routes without ability still work')
    assert.equal((await api(none, '/api/posts')).status, 403)
    const jwt = await getToken(server.url, ALICE)
    assert.equal((await api(jwt, '/api/posts', 'POST')).status, 200)
    assert.equal((await api(jwt, '/api/posts', 'DELETE')).status, 200)
    assert.deepEqual((await body(await api(jwt, '/api/abilities'))).data, ['*'])
    // No token at all: 401 before any ability check.
    assert.equal((await fetch(`${server.url}/api/posts`, { method: 'POST' })).status, 401)
  })

  it('an expired token is refused (401) and listed as expired', async () => {
    // 6 s: the command's exit and the first request fit in it on a busy machine (1.2 s did not always).
    const token = craftToken(ALICE, '--name', 'short', '--expires', '0.1')
    assert.equal((await api(token)).status, 200)
    await new Promise((r) => setTimeout(r, 6500))
    const r = await api(token)
    assert.equal(r.status, 401)
    assert.equal((await body(r)).code, 'E_TOKEN_INVALID')
    const page = await alice.get('/account/tokens')
    assert.match(page.text, /short[\s\S]*?\(expired\)/)
  })

  it('revoke on the page: CSRF required, another user\'s id is 404 and ends nothing, own token → next request 401', async () => {
    const token = await createOnPage(alice, { name: 'to revoke', abilities: '', expires: 'none' })
    const id = /^trw_(\d+)_/.exec(token)![1]!
    assert.equal((await api(token)).status, 200)
    const noCsrf = await alice.post(`/account/tokens/${id}/revoke`, {})
    assert.equal(noCsrf.status, 419)
    assert.equal((await api(token)).status, 200)
    const foreign = await bob.submit('/account/tokens', `/account/tokens/${id}/revoke`, {})
    assert.equal(foreign.status, 404)
    assert.equal((await api(token)).status, 200, "Bob cannot revoke Alice's token")
    const unknown = await alice.submit('/account/tokens', '/account/tokens/999999/revoke', {})
    assert.equal(unknown.status, 404)
    const own = await alice.submit('/account/tokens', `/account/tokens/${id}/revoke`, {})
    assert.equal(own.status, 302)
    assert.equal(own.location, '/account/tokens')
    const r = await api(token)
    assert.equal(r.status, 401)
    assert.equal(r.headers.get('www-authenticate'), 'Bearer realm="api", error="invalid_token"')
    assert.equal(await db('personal_access_tokens').where('id', id).first(), undefined)
    // Bob's page lists none of Alice's tokens.
    const bobs = await bob.get('/account/tokens')
    assert.doesNotMatch(bobs.text, /CI deploy|to revoke/)
  })

  it('the page needs a login; bad input is a field error with the name kept', async () => {
    const anon = await new Client(server.url).get('/account/tokens')
    assert.equal(anon.status, 302)
    assert.match(anon.location ?? '', /^\/login/)
    const bad = await alice.submit('/account/tokens', '/account/tokens', { name: '', abilities: 'bad ability"', expires: '30' })
    assert.equal(bad.status, 302)
    const page = await alice.get('/account/tokens')
    assert.match(page.text, /class="field-error" id="token-name-error"/)
    assert.match(page.text, /class="field-error" id="token-abilities-error"/)
    assert.doesNotMatch(page.text, FIND_TOKEN)
  })

  it('last_used_at is written at most once a minute per token: 20 concurrent requests, one write', async () => {
    const token = craftToken(ALICE, '--name', 'busy')
    const id = Number(/^trw_(\d+)_/.exec(token)![1])
    await installWriteCounter(db, id)
    const results = await Promise.all(Array.from({ length: 20 }, () => api(token)))
    assert.deepEqual(results.map((r) => r.status), Array(20).fill(200))
    assert.equal(await writeCount(db), 1, 'exactly one UPDATE changed last_used_at')
    const first = (await db('personal_access_tokens').where('id', id).first()).last_used_at
    assert.ok(first)
    await Promise.all(Array.from({ length: 5 }, () => api(token)))
    assert.equal(await writeCount(db), 1, 'within the minute: no further write')
    // A minute later (moved back in the database) the next request writes once more.
    await db('personal_access_tokens').where('id', id).update({ last_used_at: new Date(Date.now() - 120_000) })
    const base = await writeCount(db)
    await Promise.all(Array.from({ length: 10 }, () => api(token)))
    assert.equal((await writeCount(db)) - base, 1)
    const page = await alice.get('/account/tokens')
    const row = page.text.split('>busy<')[1]!.split('</tr>')[0]!
    assert.equal(row.match(/<time /g)?.length, 2, 'created and last used are shown (expires: Never)')
    await removeWriteCounter(db)
  })

  it('craft token:create prints the token once (stdout) and exits 0; an unknown address exits 1 with a clear message', async () => {
    const r = app.craft('token:create', ALICE, '--name', 'cli', '--abilities', 'posts:read,posts:write', '--expires', '60')
    assert.equal(r.code, 0, r.stderr)
    const tokens = (r.stdout + r.stderr).match(FIND_TOKEN) ?? []
    assert.equal(tokens.length, 1)
    assert.equal(r.stdout.trim(), tokens[0])
    assert.match(r.stderr, /not be shown again/)
    assert.equal((await api(tokens[0]!, '/api/posts', 'POST')).status, 200)
    const unknown = app.craft('token:create', 'nobody@example.test', '--name', 'x')
    assert.equal(unknown.code, 1)
    assert.match(unknown.stderr, /No user with the address "nobody@example\.test"/)
    assert.doesNotMatch(unknown.stdout, /trw_/)
    const badExpiry = app.craft('token:create', ALICE, '--name', 'x', '--expires', 'soon')
    assert.equal(badExpiry.code, 1)
    assert.match(badExpiry.stderr, /--expires must be a positive duration such as 90d, 12h or 30m/)
    const badAbility = app.craft('token:create', ALICE, '--name', 'x', '--abilities', 'a b"c')
    assert.equal(badAbility.code, 1)
  })

  it('POST /api/logout with a personal token deletes it; POST /api/revoke with its value too (200)', async () => {
    const a = craftToken(ALICE, '--name', 'logout')
    const out = await fetch(`${server.url}/api/logout`, { method: 'POST', headers: { authorization: `Bearer ${a}` } })
    assert.equal(out.status, 204)
    assert.equal((await api(a)).status, 401)
    const b = craftToken(ALICE, '--name', 'leaked')
    const revoked = await new Client(server.url).postJson('/api/revoke', { token: b })
    assert.equal(revoked.status, 200)
    assert.equal((await api(b)).status, 401)
    const jwt = await getToken(server.url, ALICE)
    assert.equal((await api(jwt)).status, 200, "the user's JWT is untouched")
  })

  it('issued and revoked tokens are audited (kind personal, name), never with the value', async () => {
    const token = craftToken(ALICE, '--name', 'audited')
    await new Promise((r) => setTimeout(r, 300))
    const rows = await db('auth_events').whereIn('type', ['auth:token_issued', 'auth:token_revoked']).select('*')
    const details = rows.map((r) => (typeof r.details === 'string' ? JSON.parse(r.details) : r.details))
    assert.ok(details.some((d) => d.kind === 'personal' && d.name === 'CI deploy'), JSON.stringify(details))
    assert.ok(rows.some((r) => r.type === 'auth:token_revoked' && JSON.stringify(r.details).includes('to revoke')))
    assert.ok(!JSON.stringify(rows).includes(token.slice(4)), 'no token value in the audit log')
    assert.ok(!server.output().includes(token.slice(-46, -6)), 'no token value in the server log')
  })

  it('personal tokens are for scripts: a password change, "log out other devices" and a password reset keep them; deleting the account ends them', async () => {
    const token = craftToken(BOB, '--name', 'bob ci')
    assert.equal((await api(token)).status, 200)
    const changed = await bob.submit('/account', '/account/password', { current_password: PASSWORD, password: 'another long passphrase 42', password_confirmation: 'another long passphrase 42' })
    assert.equal(changed.status, 302, changed.text)
    assert.equal((await api(token)).status, 200, 'kept: the user, logged in, changed the password')
    const others = await bob.submit('/account/devices', '/account/devices/revoke-others', {})
    assert.equal(others.status, 302, others.text)
    assert.equal((await api(token)).status, 200, 'kept by "log out other devices"')
    const before = app.exists('storage/logs/mail.log') ? app.read('storage/logs/mail.log').length : 0
    await new Client(server.url).submit('/password_reset', '/password_reset', { email: BOB })
    let link = ''
    for (let i = 0; i < 50 && !link; i++) {
      const log = app.exists('storage/logs/mail.log') ? app.read('storage/logs/mail.log').slice(before) : ''
      link = /\/change_password\/([A-Za-z0-9_-]{43})/.exec(log)?.[1] ?? ''
      if (!link) await new Promise((r) => setTimeout(r, 100))
    }
    assert.ok(link, 'reset mail sent')
    const NEW = 'a third long passphrase 7'
    const reset = await new Client(server.url).submit(`/change_password/${link}`, `/change_password/${link}`, { password: NEW, password_confirmation: NEW })
    assert.equal(reset.status, 302, reset.text)
    assert.equal((await api(token)).status, 200, 'kept by a password reset (JWTs and web logins end, scripts keep working)')
    assert.equal((await bob.get('/account')).status, 302, 'the reset ended the web login')
    const bobId = (await db('users').where('email', BOB).first()).id
    assert.equal((await db('personal_access_tokens').where('user_id', bobId)).length, 1)

    // Deleting the account ends them with it.
    const again = new Client(server.url)
    const login = await again.submit('/login', '/login', { email: BOB, password: NEW })
    assert.equal(login.status, 302, login.text)
    const deleted = await again.submit('/account', '/account/delete', {})
    assert.equal(deleted.status, 302, deleted.text)
    assert.equal(deleted.location, '/')
    assert.equal((await api(token)).status, 401, 'refused once the account is deleted')
    assert.equal((await db('personal_access_tokens').where('user_id', bobId)).length, 0)
  })
})

/** A trigger counting the UPDATEs that change `last_used_at` of token `id` (per database). */
async function installWriteCounter(db: Knex, id: number): Promise<void> {
  await db.schema.dropTableIfExists('pat_writes')
  await db.schema.createTable('pat_writes', (t) => t.integer('n'))
  const driver = testDriver()
  if (driver === 'sqlite') {
    await db.raw(`CREATE TRIGGER pat_touch AFTER UPDATE OF last_used_at ON personal_access_tokens WHEN NEW.id = ${id} BEGIN INSERT INTO pat_writes (n) VALUES (1); END`)
  } else if (driver === 'postgres') {
    await db.raw(`CREATE OR REPLACE FUNCTION pat_touch_fn() RETURNS trigger AS $$ BEGIN IF NEW.id = ${id} THEN INSERT INTO pat_writes (n) VALUES (1); END IF; RETURN NEW; END $$ LANGUAGE plpgsql`)
    await db.raw('CREATE TRIGGER pat_touch AFTER UPDATE OF last_used_at ON personal_access_tokens FOR EACH ROW EXECUTE FUNCTION pat_touch_fn()')
  } else {
    await db.raw(`CREATE TRIGGER pat_touch AFTER UPDATE ON personal_access_tokens FOR EACH ROW INSERT INTO pat_writes (n) SELECT 1 FROM DUAL WHERE NEW.id = ${id} AND NOT (OLD.last_used_at <=> NEW.last_used_at)`)
  }
}

async function writeCount(db: Knex): Promise<number> {
  const row = await db('pat_writes').count({ c: '*' }).first()
  return Number(row?.c ?? 0)
}

async function removeWriteCounter(db: Knex): Promise<void> {
  await db.raw('DROP TRIGGER IF EXISTS pat_touch' + (testDriver() === 'postgres' ? ' ON personal_access_tokens' : ''))
  await db.schema.dropTableIfExists('pat_writes')
}
