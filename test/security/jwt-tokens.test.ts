/**
 * Adversarial: forged, malformed and misplaced JWTs against a generated app's `api` routes and
 * token routes. Every variant is answered 401 (400/431 for oversized headers), never 5xx, and
 * no response ever carries a token. Two servers share one app and database: `authenticates`
 * false (the default) and true.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createServer, type Server as HttpServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Knex } from 'knex'
import { newApp, migrate, type TestApp, type Server } from '../helpers/app-harness.js'
import { Client } from '../helpers/http-client.js'
import { applyApiSteps, applyAuthSteps, setJwtConfig } from '../helpers/seed-steps.js'
import {
  PASSWORD, appDb, assertNoSecrets, b64, sha256, decodeJwt, getToken, JWT_SHAPE, rawGet, rawHttp, registerUser, sign, signSegments, snapshotUsers,
} from '../helpers/security-kit.js'

const API_ROUTES = `import { Route } from 'trowel'

export const ROUTES = [
  Route.get('/me', ({ request }) => ({ data: request.user() })),
  Route.post('/me', ({ request }) => ({ data: request.user() })),
]
`

const now = () => Math.floor(Date.now() / 1000)

function flipByte(segment: string, index: number): string {
  const bytes = Buffer.from(segment, 'base64url')
  bytes[index % bytes.length]! ^= 0x01
  return bytes.toString('base64url')
}

describe('JWT: forged and malformed tokens; token routes under attack', () => {
  let app: TestApp
  let server: Server
  let strict: Server
  let secret: string
  let db: Knex
  let token: string
  let payload: any
  let jwksHits = 0
  let jwks: HttpServer
  let jwksUrl: string

  before(async () => {
    jwks = createServer((_req, res) => {
      jwksHits++
      res.end(JSON.stringify({ keys: [{ kty: 'oct', k: b64('attacker-key-attacker-key-attacker-key'), kid: 'evil' }] }))
    })
    await new Promise<void>((r) => jwks.listen(0, '127.0.0.1', r))
    jwksUrl = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks.json`

    app = await newApp()
    applyAuthSteps(app)
    applyApiSteps(app, { apiRoutes: API_ROUTES })
    migrate(app)
    secret = /^JWT_SECRET=(.+)$/m.exec(app.read('.env'))![1]!
    server = await app.serve()
    setJwtConfig(app, { authenticates: 'true' })
    strict = await app.serve()
    db = appDb(app)
    await registerUser(server.url, 'jwt@example.test')
    await registerUser(server.url, 'doomed@example.test')
    await registerUser(server.url, 'victim@example.test')
    await registerUser(server.url, 'racer@example.test')
    await registerUser(server.url, 'nulltoken@example.test')
    token = await getToken(server.url, 'jwt@example.test')
    payload = decodeJwt(token)[1]
  })
  after(async () => {
    await db?.destroy()
    await app.cleanup()
    await new Promise<void>((r) => jwks.close(() => r()))
  })

  async function expect401(t: string, label: string, servers: Server[] = [server, strict]) {
    for (const s of servers) {
      const r = await new Client(s.url).get('/api/me', { authorization: `Bearer ${t}` })
      assert.equal(r.status, 401, `${label} on ${s === strict ? 'authenticates:true' : 'authenticates:false'}: ${r.status} ${r.text}`)
      assert.equal(r.json().code, 'E_TOKEN_INVALID', label)
      assert.match(r.headers.get('www-authenticate') ?? '', /^Bearer/, label)
      assert.doesNotMatch(r.text, JWT_SHAPE, label)
    }
  }

  it('the genuine token works on both servers (control)', async () => {
    for (const s of [server, strict]) {
      const r = await new Client(s.url).get('/api/me', { authorization: `Bearer ${token}` })
      assert.equal(r.status, 200, r.text)
    }
    // The same claims signed with the real secret are accepted: every refusal below is about the change made.
    assert.equal((await new Client(server.url).get('/api/me', { authorization: `Bearer ${sign({ alg: 'HS512', typ: 'JWT' }, payload, secret)}` })).status, 200)
  })

  it('alg none / None / nOnE, with and without a signature', async () => {
    for (const alg of ['none', 'None', 'nOnE', 'NONE']) {
      const unsigned = `${b64({ alg, typ: 'JWT' })}.${b64(payload)}`
      await expect401(`${unsigned}.`, `alg ${alg} empty signature`)
      await expect401(signSegments(b64({ alg, typ: 'JWT' }), b64(payload), secret), `alg ${alg} with an HS512 signature`)
    }
  })

  it('other HMACs with the real secret, and asymmetric algorithm headers', async () => {
    await expect401(sign({ alg: 'HS256', typ: 'JWT' }, payload, secret, 'sha256'), 'HS256 real secret')
    await expect401(sign({ alg: 'HS384', typ: 'JWT' }, payload, secret, 'sha384'), 'HS384 real secret')
    // HS512 signature bytes under a HS256/HS384 label, and asymmetric labels over HMAC signatures (key confusion).
    await expect401(signSegments(b64({ alg: 'HS256', typ: 'JWT' }), b64(payload), secret, 'sha512'), 'HS256 label, HS512 signature')
    for (const alg of ['RS256', 'ES256', 'PS256', 'EdDSA']) {
      await expect401(sign({ alg, typ: 'JWT' }, payload, secret, 'sha256'), `${alg} header, HMAC-SHA256 signature`)
      await expect401(sign({ alg, typ: 'JWT' }, payload, secret, 'sha512'), `${alg} header, HMAC-SHA512 signature`)
    }
  })

  it('stripped, truncated, padded and extended signatures', async () => {
    const [h, p, s] = token.split('.') as [string, string, string]
    await expect401(`${h}.${p}.`, 'stripped signature')
    await expect401(`${h}.${p}`, 'no signature segment')
    await expect401(`${h}.${p}.${s.slice(0, -1)}`, 'signature minus one character')
    await expect401(`${h}.${p}.${s.slice(0, 43)}`, 'signature truncated to 32 bytes')
    await expect401(`${h}.${p}.${s}=`, 'padded signature')
    await expect401(`${h}.${p}.${s}==`, 'double-padded signature')
    await expect401(`${h}.${p}.${s}AA`, 'signature with extra bytes')
    await expect401(`${h}=.${p}.${s}`, 'padded header')
  })

  it('one flipped byte in the header, the payload or the signature', async () => {
    const [h, p, s] = token.split('.') as [string, string, string]
    for (let i = 0; i < 6; i++) {
      await expect401(`${flipByte(h, i * 5)}.${p}.${s}`, `header byte ${i * 5}`)
      await expect401(`${h}.${flipByte(p, i * 11)}.${s}`, `payload byte ${i * 11}`)
      await expect401(`${h}.${p}.${flipByte(s, i * 13)}`, `signature byte ${i * 13}`)
    }
    // The last base64url character of a 64-byte signature carries 4 unused bits: a non-canonical twin.
    const last = s.at(-1)!
    const twin = 'AEIMQUYcgkosw048'.includes(last) ? String.fromCharCode(last.charCodeAt(0) + 1) : last
    if (twin !== last) await expect401(`${h}.${p}.${s.slice(0, -1)}${twin}`, 'non-canonical signature twin')
  })

  it('kid, jku and jwk headers select nothing and fetch nothing', async () => {
    const attacker = 'attacker-key-attacker-key-attacker-key'
    await expect401(sign({ alg: 'HS512', typ: 'JWT', jku: jwksUrl, kid: 'evil' }, payload, attacker), 'jku to an attacker JWKS')
    await expect401(sign({ alg: 'HS512', typ: 'JWT', x5u: jwksUrl }, payload, attacker), 'x5u to an attacker URL')
    await expect401(sign({ alg: 'HS512', typ: 'JWT', jwk: { kty: 'oct', k: b64(attacker) } }, payload, attacker), 'embedded jwk')
    await expect401(sign({ alg: 'HS512', typ: 'JWT', kid: '../../../../dev/null' }, payload, ''), 'kid path traversal, empty key')
    await expect401(sign({ alg: 'HS512', typ: 'JWT', kid: "x' UNION SELECT 'k" }, payload, 'k'), 'kid SQL injection')
    await new Promise((r) => setTimeout(r, 200))
    assert.equal(jwksHits, 0, 'the server fetched a key URL named by a token')
  })

  it('a wrong key, 2 or 4 segments, bad base64url', async () => {
    const [h, p, s] = token.split('.') as [string, string, string]
    await expect401(sign({ alg: 'HS512', typ: 'JWT' }, payload, 'a-completely-different-secret-of-enough-length'), 'wrong key')
    await expect401(sign({ alg: 'HS512', typ: 'JWT' }, payload, secret.slice(0, -1)), 'secret minus one character')
    await expect401(`${h}.${p}`, '2 segments')
    await expect401(`${h}.${p}.${s}.${s}`, '4 segments')
    await expect401(`${h}.${p}.${s}.`, '4 segments, last empty')
    await expect401(`.${p}.${s}`, 'empty header')
    await expect401(`${h}..${s}`, 'empty payload')
    // Standard base64 (+ /) and padding inside a correctly signed token.
    const std = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64')
    await expect401(signSegments(std({ alg: 'HS512', typ: 'JWT' }), std({ ...payload, jti: '>>>???' }), secret), 'standard base64 segments, real secret')
    await expect401(signSegments(`${h}==`, p, secret), 'padded header, real secret')
    await expect401(signSegments(h, `${p}*`, secret), 'illegal character in payload, real secret')
  })

  it('JSON arrays, scalars and non-UTF-8 as header or payload (signed with the real secret)', async () => {
    const header = b64({ alg: 'HS512', typ: 'JWT' })
    await expect401(signSegments(b64(['HS512']), b64(payload), secret), 'array header')
    await expect401(signSegments(header, b64([payload]), secret), 'array payload')
    await expect401(signSegments(header, b64('"just a string"'), secret), 'string payload')
    await expect401(signSegments(header, b64('null'), secret), 'null payload')
    await expect401(signSegments(header, b64('42'), secret), 'number payload')
    const bad = Buffer.concat([Buffer.from(JSON.stringify(payload).slice(0, -1) + ',"x":"'), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from('"}')])
    await expect401(signSegments(header, bad.toString('base64url'), secret), 'non-UTF-8 payload')
    const badHeader = Buffer.concat([Buffer.from('{"alg":"HS512","typ":"JWT","x":"'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}')])
    await expect401(signSegments(badHeader.toString('base64url'), b64(payload), secret), 'non-UTF-8 header (lone surrogate)')
    await expect401(signSegments(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify({ alg: 'HS512', typ: 'JWT' }))]).toString('base64url'), b64(payload), secret), 'BOM header')
  })

  it('claims: nbf/iat in the future, expired (both authenticates settings), version missing or different, bad sub', async () => {
    const h = { alg: 'HS512', typ: 'JWT' }
    await expect401(sign(h, { ...payload, iat: now() + 120 }, secret), 'iat in the future')
    await expect401(sign(h, { ...payload, nbf: now() + 120 }, secret), 'nbf in the future')
    await expect401(sign(h, { ...payload, iat: now() - 7200, exp: now() - 3600 }, secret), 'expired an hour ago')
    await expect401(sign(h, { ...payload, exp: now() - 1 }, secret), 'expired a second ago')
    await expect401(sign(h, { ...payload, exp: 'never' }, secret), 'string exp')
    const { version: _v, ...noVersion } = payload
    await expect401(sign(h, noVersion, secret), 'version missing')
    await expect401(sign(h, { ...payload, version: 1 }, secret), 'version 1')
    await expect401(sign(h, { ...payload, version: 'null' }, secret), 'version "null"')
    await expect401(sign(h, { ...payload, sub: Number(payload.sub) }, secret), 'numeric sub')
    await expect401(sign(h, { ...payload, sub: '' }, secret), 'empty sub')
    await expect401(sign(h, { ...payload, iat: String(payload.iat) }, secret), 'string iat')
    await expect401(sign({ ...h, typ: 'JWE' }, payload, secret), 'typ JWE')
    await expect401(sign({ ...h, crit: ['exp'] }, payload, secret), 'unknown crit header')
  })

  it('a token for a user id that does not exist, and a deleted user', async () => {
    const h = { alg: 'HS512', typ: 'JWT' }
    await expect401(sign(h, { ...payload, sub: '999999' }, secret), 'unknown sub')
    await expect401(sign(h, { ...payload, sub: "1' OR '1'='1" }, secret), 'SQL in sub')
    const doomed = await getToken(server.url, 'doomed@example.test')
    assert.equal((await new Client(server.url).get('/api/me', { authorization: `Bearer ${doomed}` })).status, 200)
    await db('users').where('email', 'doomed@example.test').delete()
    await expect401(doomed, 'deleted user')
    const re = await new Client(server.url).postJson('/api/reauth', { token: doomed })
    assert.equal(re.status, 401)
  })

  it('a token in the query string or the body is not a credential', async () => {
    for (const s of [server, strict]) {
      const c = new Client(s.url)
      for (const name of ['token', 'access_token', 'jwt', 'authorization']) {
        const q = await c.get(`/api/me?${name}=${token}`)
        assert.equal(q.status, 401, `query ${name}`)
        assert.equal(q.json().code, 'E_TOKEN_MISSING')
        const b = await c.postJson('/api/me', { [name]: token, Authorization: `Bearer ${token}` })
        assert.equal(b.status, 401, `body ${name}`)
        assert.equal(b.json().code, 'E_TOKEN_MISSING')
      }
      const cookie = await c.request('GET', '/api/me', { headers: { cookie: `token=${token}; jwt=${token}` }, cookies: false })
      assert.equal(cookie.status, 401, 'cookie')
    }
  })

  it('the token routes read the body only: credentials or a token in the query string issue nothing', async () => {
    const c = new Client(server.url)
    const credentials = new URLSearchParams({ username: 'jwt@example.test', password: PASSWORD })
    const auth = await c.request('POST', `/api/auth?${credentials}`, { headers: { accept: 'application/json' } })
    assert.equal(auth.status, 401)
    assert.equal(auth.json().code, 'E_INVALID_CREDENTIALS')
    await registerUser(server.url, 'query-reauth@example.test')
    const fresh = await getToken(server.url, 'query-reauth@example.test')
    const re = await c.request('POST', `/api/reauth?token=${fresh}`, { headers: { accept: 'application/json' } })
    assert.equal(re.status, 401)
    assert.equal(re.json().code, 'E_REAUTH_FAILED')
    // The same token in the body is still good: the query attempt consumed nothing.
    assert.equal((await c.postJson('/api/reauth', { token: fresh })).status, 200)
  })

  it('Authorization header variants: missing, bare scheme, spacing, other schemes, duplicates', async () => {
    const variants: [string | null, string][] = [
      [null, 'missing'],
      ['', 'empty'],
      ['Bearer', 'Bearer alone'],
      ['Bearer ', 'Bearer and a space'],
      [`Bearer  ${token}`, 'double space'],
      [`Bearer\t${token}`, 'tab'],
      [`Bearer ${token} extra`, 'trailing word'],
      [`Bearer ${token},Bearer ${token}`, 'comma-joined twice'],
      [`Bearer "${token}"`, 'quoted'],
      [`Basic ${Buffer.from(`jwt@example.test:${PASSWORD}`).toString('base64')}`, 'Basic with the real password'],
      [`Token ${token}`, 'Token scheme'],
      [`JWT ${token}`, 'JWT scheme'],
      [`Bearer: ${token}`, 'Bearer: colon'],
      [token, 'no scheme'],
    ]
    for (const [value, label] of variants) {
      const lines = value === null ? [] : [`Authorization: ${value}`]
      const r = await rawGet(server.port, '/api/me', lines)
      assert.equal(r.status, 401, `${label}: ${r.head}`)
      assert.match(r.head, /www-authenticate: Bearer/i, label)
      assert.doesNotMatch(r.body, JWT_SHAPE, label)
    }
    // Two Authorization headers are ambiguous (a proxy may pick the other one): refused either order.
    for (const pair of [[`Bearer ${token}`, 'Bearer junk.junk.junk'], ['Bearer junk.junk.junk', `Bearer ${token}`], [`Bearer ${token}`, `Bearer ${token}`]]) {
      const r = await rawGet(server.port, '/api/me', pair.map((v) => `Authorization: ${v}`))
      assert.equal(r.status, 401, `duplicate Authorization ${pair.map((v) => v.slice(0, 12)).join(' + ')}: ${r.head}`)
    }
    // The genuine header through the raw client works (control for the raw path).
    assert.equal((await rawGet(server.port, '/api/me', [`Authorization: Bearer ${token}`])).status, 200)
  })

  it('20 KB and 1 MB headers are refused with 431/400 and the server keeps serving', async () => {
    for (const size of [20 * 1024, 1024 * 1024]) {
      const big = `Bearer ${token}${'A'.repeat(size)}`
      const r = await rawGet(server.port, '/api/me', [`Authorization: ${big}`])
      assert.ok(r.status === 431 || r.status === 400 || r.status === 401, `${size}-byte Authorization: ${r.status} ${r.head}`)
      const other = await rawGet(server.port, '/api/me', [`Authorization: Bearer ${token}`, `X-Filler: ${'x'.repeat(size)}`])
      assert.ok(other.status === 431 || other.status === 400, `${size}-byte other header: ${other.status}`)
      const many = await rawHttp(server.port, [`GET /api/me HTTP/1.1`, 'Host: x', 'Connection: close', ...Array.from({ length: 2000 }, (_, i) => `X-H${i}: ${'v'.repeat(10)}`), '', ''].join('\r\n'))
      assert.ok(many.status === 431 || many.status === 400 || many.status === 401, `2000 headers: ${many.status}`)
    }
    const ok = await new Client(server.url).get('/api/me', { authorization: `Bearer ${token}` })
    assert.equal(ok.status, 200)
  })

  it('objects, arrays, null, numbers and repeated form keys as username/password → 400/422, no token', async () => {
    const before = await snapshotUsers(db)
    const bodies: unknown[] = [
      { username: { $ne: null }, password: { $ne: null } },
      { username: { $gt: '' }, password: PASSWORD },
      { username: 'victim@example.test', password: { $ne: 'x' } },
      { username: ['victim@example.test'], password: PASSWORD },
      { username: 'victim@example.test', password: [PASSWORD] },
      { username: null, password: PASSWORD },
      { username: 'victim@example.test', password: null },
      { username: 12345, password: PASSWORD },
      { username: 'victim@example.test', password: 12345678 },
      { username: true, password: true },
      { username: 'victim@example.test', password: { toString: PASSWORD } },
    ]
    for (const body of bodies) {
      const r = await new Client(server.url).postJson('/api/auth', body)
      assert.ok(r.status === 400 || r.status === 422, `${JSON.stringify(body)} → ${r.status} ${r.text}`)
      assert.doesNotMatch(r.text, JWT_SHAPE)
    }
    const repeated = await new Client(server.url).request('POST', '/api/auth', { body: `username=victim%40example.test&username=x&password=${encodeURIComponent(PASSWORD)}`, headers: { 'content-type': 'application/x-www-form-urlencoded' } })
    assert.ok(repeated.status === 400 || repeated.status === 422, `repeated form key → ${repeated.status}`)
    const bracket = await new Client(server.url).request('POST', '/api/auth', { body: `username[]=victim%40example.test&password=${encodeURIComponent(PASSWORD)}`, headers: { 'content-type': 'application/x-www-form-urlencoded' } })
    assert.ok(bracket.status === 400 || bracket.status === 422, `username[] → ${bracket.status}`)
    for (const body of [{ token: { $ne: null } }, { token: [] }, { token: 1 }]) {
      const r = await new Client(server.url).postJson('/api/reauth', body)
      assert.equal(r.status, 422, `reauth ${JSON.stringify(body)} → ${r.status}`)
      assert.equal(r.json().code, 'E_VALIDATION')
      assert.doesNotMatch(r.text, JWT_SHAPE)
    }
    assert.equal(await snapshotUsers(db), before, 'the users table changed')
  })

  it('SQL metacharacters and LIKE wildcards in username change nothing and match nobody', async () => {
    const before = await snapshotUsers(db)
    const usernames = [
      "' OR '1'='1", "' OR 1=1 --", "victim@example.test' --", "victim@example.test'; DROP TABLE users; --",
      '" OR ""="', '%', '%@example.test', 'victim@example.tes_', '*', "\\' OR 1=1 #", 'victim@example.test\u0000',
      "'; UPDATE users SET password = 'x'; --",
    ]
    for (const username of usernames) {
      const r = await new Client(server.url).postJson('/api/auth', { username, password: PASSWORD })
      assert.equal(r.status, 401, `${username} → ${r.status} ${r.text}`)
      assert.equal(r.json().code, 'E_INVALID_CREDENTIALS')
    }
    assert.equal(await snapshotUsers(db), before, 'the users table changed')
    assert.equal(await getToken(server.url, 'victim@example.test').then((t) => typeof t), 'string', 'the account still works')
  })

  it('credential routes: a 900 KB username is 413 E_PAYLOAD_TOO_LARGE, refused on its declared length; under 16 KiB the field rules answer 422', async () => {
    const username = 'u'.repeat(900 * 1024) + '@example.test'
    const api = await new Client(server.url).postJson('/api/auth', { username, password: PASSWORD })
    assert.equal(api.status, 413, api.text.slice(0, 200))
    assert.equal(api.json().code, 'E_PAYLOAD_TOO_LARGE')
    const web = new Client(server.url)
    const page = await web.request('POST', '/login', { form: { email: username, password: PASSWORD } })
    assert.equal(page.status, 413)
    assert.match(page.headers.get('content-type') ?? '', /text\/html/)
    const json = await web.request('POST', '/login', { form: { email: username, password: PASSWORD }, headers: { accept: 'application/json' } })
    assert.equal(json.status, 413)
    assert.equal(json.json().code, 'E_PAYLOAD_TOO_LARGE')
    // Under the limit (a 15 KB body), the 320-byte rule answers, not the body limit.
    const long = await new Client(server.url).postJson('/api/auth', { username: 'x'.repeat(321) + '@example.test', password: PASSWORD, pad: 'p'.repeat(15 * 1024) })
    assert.equal(long.status, 422, long.text)
    assert.equal(long.json().code, 'E_VALIDATION')
    // Only the headers and a kilobyte of the 900 KB are ever sent: the answer still comes, so the
    // server decided on the declared length and never waited for (or kept) the rest.
    const start = `{"username":"${'u'.repeat(1024)}`
    const raw = await rawHttp(server.port, [
      'POST /api/auth HTTP/1.1', `Host: 127.0.0.1:${server.port}`, 'Connection: close', 'Content-Type: application/json',
      `Content-Length: ${900 * 1024}`, '', start,
    ].join('\r\n'))
    assert.equal(raw.status, 413, raw.head)
    assert.equal(JSON.parse(raw.body).code, 'E_PAYLOAD_TOO_LARGE')
    // Other routes keep the app's 1 MiB limit.
    const other = await new Client(server.url).postJson('/api/me', { pad: 'p'.repeat(900 * 1024) }, { authorization: `Bearer ${token}` })
    assert.equal(other.status, 200, other.text.slice(0, 200))
  })

  it('a 1 MB password is refused (401/413/422), never 5xx, never a token', async () => {
    const huge = 'p'.repeat(1000 * 1000)
    const r = await new Client(server.url).postJson('/api/auth', { username: 'victim@example.test', password: huge })
    assert.ok([401, 413, 422].includes(r.status), String(r.status))
    assert.doesNotMatch(r.text, JWT_SHAPE)
    const over = await new Client(server.url).postJson('/api/auth', { username: 'victim@example.test', password: 'p'.repeat(2 * 1024 * 1024) })
    assert.equal(over.status, 413)
    assert.equal(over.json().code, 'E_PAYLOAD_TOO_LARGE')
    const form = await new Client(server.url).post('/api/auth', { username: 'victim@example.test', password: 'x'.repeat(1025) })
    assert.equal(form.status, 401)
  })

  it('{} / null / empty reauth and a validly signed token for a user whose token column is NULL never issue a token', async () => {
    const row = await db('users').where('email', 'nulltoken@example.test').first()
    assert.equal(row.api_token, null)
    const forged = sign({ alg: 'HS512', typ: 'JWT' }, { sub: String(row.id), iat: now() - 5, jti: 'x', version: null }, secret)
    for (const body of [{}, { token: null }, { token: '' }, { token: 'null' }, { token: forged }]) {
      const r = await new Client(server.url).postJson('/api/reauth', body)
      assert.equal(r.status, 401, `${JSON.stringify(body)} → ${r.status}`)
      assert.deepEqual(r.json(), { message: 'Could not reauthenticate based on given token.', code: 'E_REAUTH_FAILED' })
    }
    const empty = await new Client(server.url).request('POST', '/api/reauth', { body: '', headers: { 'content-type': 'application/json' } })
    assert.equal(empty.status, 401)
    const nul = await new Client(server.url).request('POST', '/api/reauth', { body: 'null', headers: { 'content-type': 'application/json' } })
    assert.equal(nul.status, 400)
    assert.equal((await db('users').where('email', 'nulltoken@example.test').first()).api_token, null, 'the NULL column was filled')
  })

  it('20 parallel reauths with one token: exactly one 200, and the database holds the winner digest', async () => {
    const token = await getToken(server.url, 'racer@example.test')
    const results = await Promise.all(Array.from({ length: 20 }, () => new Client(server.url).postJson('/api/reauth', { token })))
    const statuses = results.map((r) => r.status)
    assert.deepEqual(statuses.filter((s) => s !== 200 && s !== 401), [], statuses.join(','))
    const winners = results.filter((r) => r.status === 200)
    assert.equal(winners.length, 1, statuses.join(','))
    const winner = winners[0]!.json().data as string
    const stored = (await db('users').where('email', 'racer@example.test').first()).api_token
    assert.equal(stored, sha256(winner))
    assert.equal((await new Client(server.url).postJson('/api/reauth', { token })).status, 401, 'the old token reauthed again')
    assert.equal((await new Client(server.url).postJson('/api/reauth', { token: winner })).status, 200, 'the winner token reauths')
  })

  it('logs: token events carry time, ip and user id; no password, secret or JWT is ever logged', async () => {
    assert.equal((await new Client(server.url).postJson('/api/auth', { username: 'victim@example.test', password: 'not the password' })).status, 401)
    // Log lines travel through the server's stdout pipe: wait for this one (and so the earlier ones).
    const named = () => server.output().split('\n').some((l) => / auth\.login_failed /.test(l) && /"user_id":\d+/.test(l))
    for (let i = 0; i < 100 && !named(); i++) await new Promise((r) => setTimeout(r, 50))
    for (const s of [server, strict]) {
      const out = s.output()
      assertNoSecrets(out, [PASSWORD, secret, token])
      assert.doesNotMatch(out, JWT_SHAPE, 'a JWT-shaped string reached the log')
    }
    const issued = server.output().split('\n').filter((l) => / auth\.token_issued /.test(l))
    assert.ok(issued.length > 0, 'no auth.token_issued line')
    for (const line of issued) {
      assert.match(line, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/, line)
      const fields = JSON.parse(line.slice(line.indexOf('{')))
      assert.ok(fields.user_id !== undefined && fields.user_id !== null, line)
      assert.match(String(fields.ip), /127\.0\.0\.1/, line)
    }
    const failed = server.output().split('\n').filter((l) => / auth\.login_failed /.test(l))
    assert.ok(failed.length > 0 && failed.every((l) => /"ip":"[^"]*127\.0\.0\.1"/.test(l)), 'auth.login_failed lines with ip')
    // A wrong password for an existing account names the account; an unknown address names none.
    assert.ok(failed.some((l) => /"user_id":\d+/.test(l)), 'no auth.login_failed line with the user id of a wrong password')
    const fields = (event: string) =>
      server.output().split('\n').filter((l) => l.includes(` ${event} `)).map((l) => JSON.parse(l.slice(l.indexOf('{'))))
    const reissued = fields('auth.token_reissued')
    assert.ok(reissued.length > 0 && reissued.every((f) => typeof f.user_id === 'string' && /127\.0\.0\.1/.test(f.ip)), 'auth.token_reissued with user id and ip')
    assert.ok(fields('auth.reauth_failed').length > 0, 'refused reauths are logged')
    const rejected = fields('auth.token_rejected')
    assert.ok(rejected.some((f) => f.code === 'E_TOKEN_MISSING') && rejected.some((f) => f.code === 'E_TOKEN_INVALID'), 'refused tokens are logged with their code')
    assert.ok(rejected.every((f) => /127\.0\.0\.1/.test(f.ip)))
  })
})
