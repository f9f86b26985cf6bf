/**
 * Black-box: asymmetric JWT signing (EdDSA, ES256, RS256) and the JWK Set. Each app is made by
 * `craft api:install --algorithm <alg>` and then the seed's steps; its tokens must name their key
 * (`kid`), and `jose` (an independent JOSE implementation) must verify them with nothing but
 * `GET /.well-known/jwks.json`. Rotation keeps old tokens working through `previous_keys`;
 * algorithm confusion (an HMAC token keyed with the published public key, `none`) is refused.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createHmac, createPublicKey } from 'node:crypto'
import { createLocalJWKSet, createRemoteJWKSet, jwtVerify, decodeProtectedHeader, type JSONWebKeySet } from 'jose'
import { newApp, migrate, type TestApp, type Server } from '../helpers/app-harness.js'
import { Client } from '../helpers/http-client.js'
import { applyApiSteps, applyAuthSteps } from '../helpers/seed-steps.js'

const PASSWORD = 'correct horse battery staple'
const EMAIL = 'keys@example.test'
const b64 = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url')
const decode = (token: string) => token.split('.').slice(0, 2).map((p) => JSON.parse(Buffer.from(p, 'base64url').toString()))

async function registerUser(base: string): Promise<void> {
  const c = new Client(base)
  const r = await c.submit('/register', '/register', { name: 'Key User', email: EMAIL, password: PASSWORD, password_confirmation: PASSWORD })
  assert.equal(r.location, '/home', 'registration failed')
}

async function getToken(base: string): Promise<string> {
  const r = await new Client(base).postJson('/api/auth', { username: EMAIL, password: PASSWORD })
  assert.equal(r.status, 200, r.text)
  return r.json().data
}

async function me(base: string, token: string): Promise<number> {
  return (await new Client(base).get('/api/me', { authorization: `Bearer ${token}` })).status
}

async function jwks(base: string): Promise<JSONWebKeySet> {
  const r = await new Client(base).get('/.well-known/jwks.json')
  assert.equal(r.status, 200, r.text)
  assert.match(r.headers.get('content-type') ?? '', /^application\/json/)
  assert.equal(r.headers.get('cache-control'), 'public, max-age=300')
  assert.equal(r.setCookies.length, 0, 'no session cookie on the JWK Set')
  return r.json()
}

/** The app's private key line, as api:install wrote it. */
function privateKeyLine(app: TestApp): string {
  return /^JWT_PRIVATE_KEY=(.+)$/m.exec(app.read('.env'))![1]!
}

/** An app whose API was installed with `--algorithm <algorithm>` before the seed's steps. */
async function asymmetricApp(algorithm: string): Promise<{ app: TestApp; install: { code: number; stdout: string; stderr: string } }> {
  const app = await newApp()
  applyAuthSteps(app)
  const install = app.craft('api:install', '--algorithm', algorithm)
  applyApiSteps(app) // config/api.ts exists now: api:install is not run again
  migrate(app)
  return { app, install }
}

for (const algorithm of ['EdDSA', 'ES256', 'RS256'] as const) {
  describe(`asymmetric JWTs: ${algorithm}`, () => {
    let app: TestApp
    let server: Server
    let token: string
    let install: { code: number; stdout: string; stderr: string }

    before(async () => {
      ;({ app, install } = await asymmetricApp(algorithm))
      server = await app.serve()
      await registerUser(server.url)
      token = await getToken(server.url)
    })
    after(async () => {
      await server?.stop()
      app?.cleanup()
    })

    it('api:install --algorithm wrote the private key to .env (never printed) and set the algorithm', () => {
      assert.equal(install.code, 0, install.stderr)
      assert.match(install.stdout, /JWT_PRIVATE_KEY .*written to \.env/)
      const line = privateKeyLine(app)
      assert.match(line, /^"-----BEGIN PRIVATE KEY-----\\n.+\\n-----END PRIVATE KEY-----\\n"$/, 'one line with \\n escapes')
      assert.ok(!install.stdout.includes(line.slice(40, 70)) && !install.stderr.includes(line.slice(40, 70)), 'the key is not printed')
      assert.doesNotMatch(app.read('.env'), /^JWT_SECRET=/m, 'no HMAC secret is needed')
      assert.match(app.read('config/api.ts'), new RegExp(`algorithm: '${algorithm}', private_key: env\\('JWT_PRIVATE_KEY'\\)`))
      // A second run keeps the key; --force rewrites config/api.ts only.
      const again = app.craft('api:install', '--algorithm', algorithm, '--force')
      assert.equal(again.code, 0, again.stderr)
      assert.match(again.stdout, /JWT_PRIVATE_KEY already set in \.env; kept it/)
      assert.equal(privateKeyLine(app), line)
    })

    it('signs tokens with the configured algorithm and names the key (kid)', async () => {
      const [header, payload] = decode(token)
      assert.deepEqual(Object.keys(header).sort(), ['alg', 'kid', 'typ'])
      assert.equal(header.alg, algorithm)
      assert.equal(header.typ, 'JWT')
      assert.match(header.kid, /^[A-Za-z0-9_-]{43}$/, 'an RFC 7638 SHA-256 thumbprint')
      assert.equal(typeof payload.sub, 'string')
      assert.equal(await me(server.url, token), 200)
    })

    it('publishes the public key in the JWK Set, and jose verifies a token with it alone', async () => {
      const set = await jwks(server.url)
      assert.equal(set.keys.length, 1)
      const [key] = set.keys
      assert.equal(key!.kid, decode(token)[0].kid)
      assert.equal(key!.alg, algorithm)
      assert.equal(key!.use, 'sig')
      for (const secret of ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k']) assert.equal((key as Record<string, unknown>)[secret], undefined, `no private member ${secret}`)
      const { payload, protectedHeader } = await jwtVerify(token, createLocalJWKSet(set), { algorithms: [algorithm] })
      assert.equal(protectedHeader.kid, key!.kid)
      assert.equal(payload.sub, decode(token)[1].sub)
      // As a remote verifier would: fetched over HTTP, selected by kid.
      const remote = createRemoteJWKSet(new URL('/.well-known/jwks.json', server.url))
      assert.equal((await jwtVerify(token, remote, { algorithms: [algorithm] })).payload.sub, payload.sub)
    })

    it('refuses algorithm confusion: HMAC tokens keyed with the public key, and none', async () => {
      const set = await jwks(server.url)
      const pem = createPublicKey({ key: set.keys[0] as any, format: 'jwk' }).export({ format: 'pem', type: 'spki' }) as string
      const [header, payload] = decode(token)
      const forged: string[] = []
      for (const alg of ['HS256', 'HS384', 'HS512']) {
        for (const key of [pem, pem.trim(), JSON.stringify(set.keys[0]), JSON.stringify(set)]) {
          const input = `${b64({ ...header, alg })}.${b64(payload)}`
          forged.push(`${input}.${createHmac(`sha${alg.slice(2)}`, key).update(input).digest('base64url')}`)
        }
      }
      forged.push(`${b64({ ...header, alg: 'none' })}.${b64(payload)}.`)
      // The real signature under another asymmetric label.
      const other = algorithm === 'EdDSA' ? 'ES256' : 'EdDSA'
      forged.push(`${b64({ ...header, alg: other })}.${b64(payload)}.${token.split('.')[2]}`)
      for (const f of forged) {
        const r = await new Client(server.url).get('/api/me', { authorization: `Bearer ${f}` })
        assert.equal(r.status, 401, `${decode(f)[0].alg} token accepted`)
        assert.equal(r.json().code, 'E_TOKEN_INVALID')
      }
      // Nor can such a token be exchanged for a real one.
      const r = await new Client(server.url).postJson('/api/reauth', { token: forged[0] })
      assert.equal(r.status, 401)
    })

    it('reauth issues a new token with the same key', async () => {
      const r = await new Client(server.url).postJson('/api/reauth', { token })
      assert.equal(r.status, 200, r.text)
      const fresh = r.json().data
      assert.equal(decode(fresh)[0].kid, decode(token)[0].kid)
      assert.equal(await me(server.url, fresh), 200)
      token = fresh
    })
  })
}

describe('key rotation', () => {
  it('EdDSA: the old key moved to JWT_PREVIOUS_KEYS still verifies its tokens; the JWK Set lists both', async () => {
    const { app } = await asymmetricApp('EdDSA')
    let server = await app.serve()
    try {
      await registerUser(server.url)
      const oldToken = await getToken(server.url)
      const oldKid = decode(oldToken)[0].kid
      await server.stop()
      // Rotate: the current key becomes a previous key, api:install generates a new one.
      app.edit('.env', (t) => t.replace(/^JWT_PRIVATE_KEY=/m, 'JWT_PREVIOUS_KEYS='))
      const rotate = app.craft('api:install', '--algorithm', 'EdDSA', '--force')
      assert.equal(rotate.code, 0, rotate.stderr)
      server = await app.serve()
      const set = await jwks(server.url)
      const newToken = await getToken(server.url)
      const newKid = decode(newToken)[0].kid
      assert.notEqual(newKid, oldKid)
      assert.deepEqual(set.keys.map((k) => k.kid), [newKid, oldKid], 'current key first, then the previous one')
      // Both verify, in the app and with jose.
      assert.equal(await me(server.url, newToken), 200)
      assert.equal(await me(server.url, oldToken), 200, 'a token signed with the previous key still works')
      for (const t of [newToken, oldToken]) await jwtVerify(t, createLocalJWKSet(set), { algorithms: ['EdDSA'] })
      // Dropping the previous key ends the old tokens.
      await server.stop()
      app.edit('.env', (t) => t.replace(/^JWT_PREVIOUS_KEYS=.*\n/m, ''))
      server = await app.serve()
      assert.equal(await me(server.url, oldToken), 401)
      assert.equal(await me(server.url, newToken), 200)
      assert.deepEqual((await jwks(server.url)).keys.map((k) => k.kid), [newKid])
    } finally {
      await server.stop()
      app.cleanup()
    }
  })

  it('RS256 → ES256 through previous_keys in config/api.ts: old RS256 tokens still verify', async () => {
    const { app } = await asymmetricApp('RS256')
    let server = await app.serve()
    try {
      await registerUser(server.url)
      const oldToken = await getToken(server.url)
      await server.stop()
      app.edit('.env', (t) => t.replace(/^JWT_PRIVATE_KEY=/m, 'OLD_RSA_KEY='))
      // Another algorithm refuses the RSA key in JWT_PRIVATE_KEY; here it was moved away first.
      const rotate = app.craft('api:install', '--algorithm', 'ES256', '--force')
      assert.equal(rotate.code, 0, rotate.stderr)
      app.edit('config/api.ts', (t) => t.replace("private_key: env('JWT_PRIVATE_KEY'),", "private_key: env('JWT_PRIVATE_KEY'), previous_keys: [env('OLD_RSA_KEY')],"))
      server = await app.serve()
      const set = await jwks(server.url)
      assert.deepEqual(set.keys.map((k) => [k.kty, k.alg]), [['EC', 'ES256'], ['RSA', 'RS256']])
      assert.equal(await me(server.url, oldToken), 200)
      const newToken = await getToken(server.url)
      assert.equal(decodeProtectedHeader(newToken).alg, 'ES256')
      assert.equal(await me(server.url, newToken), 200)
      // Each key verifies only its own algorithm: jose, told to accept RS256 only, refuses the new token.
      await jwtVerify(oldToken, createLocalJWKSet(set), { algorithms: ['RS256'] })
      await assert.rejects(jwtVerify(newToken, createLocalJWKSet(set), { algorithms: ['RS256'] }))
    } finally {
      await server.stop()
      app.cleanup()
    }
  })

  it('api:install refuses to replace a key of another type', async () => {
    const app = await newApp()
    try {
      assert.equal(app.craft('api:install', '--algorithm', 'EdDSA').code, 0)
      const line = privateKeyLine(app)
      const r = app.craft('api:install', '--algorithm', 'RS256', '--force')
      assert.notEqual(r.code, 0)
      assert.match(r.stderr + r.stdout, /JWT_PRIVATE_KEY/)
      assert.match(r.stderr + r.stdout, /EdDSA/)
      assert.equal(privateKeyLine(app), line, 'the key was kept')
      assert.match(app.read('config/api.ts'), /algorithm: 'EdDSA'/, 'config/api.ts was not rewritten')
      const bad = app.craft('api:install', '--algorithm', 'PS256')
      assert.notEqual(bad.code, 0)
      assert.match(bad.stderr, /EdDSA, ES256, RS256/)
    } finally {
      app.cleanup()
    }
  })
})

describe('the HMAC default is unchanged', () => {
  let app: TestApp
  let server: Server
  before(async () => {
    app = await newApp()
    applyAuthSteps(app)
    applyApiSteps(app)
    migrate(app)
    server = await app.serve()
    await registerUser(server.url)
  })
  after(async () => {
    await server?.stop()
    app?.cleanup()
  })

  it('HS512 tokens without kid, no private key, and no JWK Set (404)', async () => {
    assert.match(app.read('config/api.ts'), /algorithm: 'HS512', secret: env\('JWT_SECRET'\)/)
    assert.doesNotMatch(app.read('.env'), /JWT_PRIVATE_KEY/)
    const token = await getToken(server.url)
    assert.deepEqual(decode(token)[0], { alg: 'HS512', typ: 'JWT' })
    assert.equal(await me(server.url, token), 200)
    const r = await new Client(server.url).get('/.well-known/jwks.json')
    assert.equal(r.status, 404)
    assert.equal(r.json().code, 'E_NOT_FOUND')
  })
})
