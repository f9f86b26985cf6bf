/**
 * The guides work exactly as written: this follows docs/getting-started.md and docs/jwt-api.md in a
 * new app. Every ```ts block headed `// <path>` is written over that file (`<timestamp>` matches the
 * generated migration), every `node craft ...` line of a ```sh block is run (except `serve`, which
 * is started once), and the requests the guides show get the answers they show.
 */
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import knex from 'knex'
import { SqliteClient } from '../../src/database/sqlite-client.js'
import bcrypt from '@node-rs/bcrypt'
import { ROOT, newApp, type TestApp, type Server } from '../helpers/app-harness.js'
import { Client } from '../helpers/http-client.js'

interface Block {
  lang: string
  text: string
}

function blocks(doc: string): Block[] {
  const text = readFileSync(join(ROOT, 'docs', doc), 'utf8')
  return [...text.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => ({ lang: m[1]!, text: m[2]! }))
}

/** Applies a guide: writes its whole-file blocks and runs its craft commands, in order. */
function follow(app: TestApp, doc: string, skipFiles: string[] = []): { files: Map<string, string> } {
  const files = new Map<string, string>()
  for (const block of blocks(doc)) {
    if (block.lang === 'sh') {
      for (const raw of block.text.split('\n')) {
        const line = raw.replace(/\s+#.*$/, '').trim()
        if (!line.startsWith('node craft ')) continue
        const args = line.slice('node craft '.length).split(/\s+/)
        if (args[0] === 'serve') continue
        const r = app.craft(...args)
        assert.equal(r.code, 0, `${doc}: "${line}" failed: ${r.stderr}${r.stdout}`)
      }
    } else if (block.lang === 'ts') {
      const header = /^\/\/ (\S+)\n/.exec(block.text)
      if (!header) continue
      let path = header[1]!
      const contents = block.text.slice(header[0].length)
      if (path.includes('<timestamp>')) {
        const [dir, name] = [path.slice(0, path.lastIndexOf('/')), path.slice(path.lastIndexOf('/') + 1)]
        const suffix = name.replace('<timestamp>', '')
        const found = readdirSync(join(app.dir, dir)).filter((f) => f.endsWith(suffix))
        assert.equal(found.length, 1, `${doc}: one file matching ${path}`)
        path = `${dir}/${found[0]}`
      }
      files.set(header[1]!, contents)
      if (skipFiles.includes(header[1]!)) continue
      app.write(path, contents)
    }
  }
  return { files }
}

let app: TestApp
let server: Server
let jwtFiles: Map<string, string>

before(async () => {
  app = await newApp()
  follow(app, 'getting-started.md')
  const generatedApiConfig = (): string => app.read('config/api.ts')
  jwtFiles = follow(app, 'jwt-api.md', ['config/api.ts']).files
  assert.equal(generatedApiConfig(), jwtFiles.get('config/api.ts'), 'docs/jwt-api.md shows exactly what api:install writes')
  server = await app.serve()
})

after(async () => {
  await app.cleanup()
})

test('getting started: register, home, log out, a failed login, log in', async () => {
  const browser = new Client(server.url)
  const form = await browser.get('/register')
  assert.match(form.text, /<title>Register · app<\/title>/, 'APPLICATION.name (APP_NAME in .env) names the pages')
  const registered = await browser.submit('/register', '/register', {
    name: 'Ada', email: 'you@example.com', password: 'your password', password_confirmation: 'your password',
  })
  assert.equal(registered.status, 302)
  assert.equal(new URL(registered.location!, server.url).pathname, '/home')
  assert.match((await browser.get('/home')).text, /Hello, Ada!/)
  const out = await browser.post('/logout', { __token: browser.csrf() })
  assert.equal(new URL(out.location!, server.url).pathname, '/login')
  assert.match((await browser.get('/login')).text, /You have been logged out\./)
  await browser.submit('/login', '/login', { email: 'you@example.com', password: 'wrong password' })
  assert.match((await browser.get('/login')).text, /The email or password is incorrect\./)
  const ok = await browser.submit('/login', '/login', { email: 'you@example.com', password: 'your password' })
  assert.equal(new URL(ok.location!, server.url).pathname, '/home')
})

test('the JWT guide: Kernel fragment of step 6 is what step 12 shows', () => {
  const fragment = blocks('jwt-api.md').find((b) => b.lang === 'ts' && b.text.includes("bind('routes.api.location'") && !b.text.startsWith('//'))!
  assert.ok(jwtFiles.get('Kernel.ts')!.includes(fragment.text), 'step 6 fragment inside step 12 Kernel.ts')
})

test('the JWT guide: the requests of "Try it" answer as shown', async () => {
  const api = new Client(server.url)
  const issued = await api.postJson('/api/auth', { username: 'you@example.com', password: 'your password' })
  assert.equal(issued.status, 200)
  const token = issued.json().data as string
  assert.match(token, /^eyJhbGciOiJIUzUxMiIsInR5cCI6IkpXVCJ9\./)
  const bearer = { authorization: `Bearer ${token}` }

  const me = await api.get('/api/me', bearer)
  assert.equal(me.status, 200)
  assert.deepEqual(Object.keys(me.json().data).sort(), ['created_at', 'email', 'email_verified_at', 'id', 'name', 'updated_at'], 'the fields the guide shows, nothing hidden')
  assert.equal(me.json().data.email, 'you@example.com')

  assert.deepEqual((await api.get('/api/posts', bearer)).json(), { data: [] })
  assert.equal((await api.get('/api/whoami', bearer)).json().data.email, 'you@example.com')

  const missing = await api.get('/api/me')
  assert.equal(missing.status, 401)
  assert.deepEqual(missing.json(), { message: 'Authentication token missing', code: 'E_TOKEN_MISSING' })
  assert.match(missing.headers.get('www-authenticate') ?? '', /^Bearer/)

  const reauth = await api.postJson('/api/reauth', { token })
  assert.equal(reauth.status, 200)
  assert.notEqual(reauth.json().data, token)
  const again = await api.postJson('/api/reauth', { token })
  assert.deepEqual(again.json(), { message: 'Could not reauthenticate based on given token.', code: 'E_REAUTH_FAILED' })

  const form = await api.post('/api/auth', { username: 'you@example.com', password: 'your password' })
  assert.equal(form.status, 200, 'form bodies work too')
  const wrong = await api.postJson('/api/auth', { username: 'you@example.com', password: 'nope' })
  assert.deepEqual(wrong.json(), { message: 'Could not find username or password', code: 'E_INVALID_CREDENTIALS' })
  const unknown = await api.get('/api/nothing-here', bearer)
  assert.equal(unknown.status, 404)
  assert.equal(unknown.json().code, 'E_NOT_FOUND')
})

test('routes:list shows the API routes in their stacks, as step 12 says', () => {
  const r = app.craft('routes:list')
  assert.equal(r.code, 0, r.stderr)
  assert.match(r.stdout, /GET\s+\/api\/me\s+api\.me\s+.*api/)
  assert.match(r.stdout, /POST\s+\/api\/auth/)
  assert.match(r.stdout, /GET\s+\/api\/posts\s+posts\.index\s+PostsController@index/)
})

test('migrating from Masonite: imported bcrypt hashes log in and are rehashed to argon2id', async () => {
  const hash = bcrypt.hashSync('masonite password', 10).replace(/^\$2y\$/, '$2b$')
  app.write('storage/masonite-users.json', JSON.stringify([{ name: 'Old User', email: 'Old@Example.com', password: hash, created_at: '2024-03-01 10:00:00' }]))
  follow(app, 'migrating-from-masonite.md')
  const connection = app.env.DB_CONNECTION === 'sqlite'
    ? knex({ client: SqliteClient, connection: { filename: join(app.dir, app.env.DB_DATABASE!) }, useNullAsDefault: true })
    : knex({ client: app.env.DB_CONNECTION === 'postgres' ? 'pg' : 'mysql2', connection: app.env.DATABASE_URL })
  try {
    const stored = () => connection('users').where('email', 'Old@Example.com').first('password')
    assert.match((await stored()).password, /^\$2b\$/)
    const browser = new Client(server.url)
    const login = await browser.submit('/login', '/login', { email: 'old@example.com', password: 'masonite password' })
    assert.equal(new URL(login.location!, server.url).pathname, '/home')
    assert.match((await stored()).password, /^\$argon2id\$/)
    const again = await new Client(server.url).submit('/login', '/login', { email: 'old@example.com', password: 'masonite password' })
    assert.equal(new URL(again.location!, server.url).pathname, '/home')
  } finally {
    await connection.destroy()
  }
})
