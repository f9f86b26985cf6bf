// The limit: plain node:http doing the same work as Trowel's routes with nothing around it.
//   GET  /bench/json      {"hello":"world"} (issue 2)
//   GET  /api/me          Bearer JWT verified by fast-jwt (HS512, cache of 1000 like Trowel), the
//                         user read by id, {"data": user}
//   GET  /api/me-checked  the same plus Trowel's `authenticates: true` check: the token's SHA-256
//                         must be the one stored for the user
//   POST /api/auth        argon2id check (the same @node-rs/argon2 as Trowel), a signed token, its
//                         digest stored; {"data": token}
//   POST /login           argon2id check, a server-side session (in memory) in an HMAC-signed cookie
//   GET  /home            the session's user, {"data": user}
//   GET  /bench/home      with APP_KEY and TROWEL_DB: Trowel's logged-in web request doing the
//                         same work on the same cookies and database (trowel-session.mjs)
// Environment: PORT, JWT_SECRET, USERS_DB, SESSION_SECRET, APP_KEY, TROWEL_DB. Listens on 127.0.0.1 only.
import { createServer } from 'node:http'
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { createSigner, createVerifier } from 'fast-jwt'
import { verify as argon2Verify } from '@node-rs/argon2'
import { openUsers } from './users.mjs'
import { trowelSession } from './trowel-session.mjs'

// /bench/json needs neither a secret nor a user store (the kernel benchmark starts it without).
const secret = process.env.JWT_SECRET ?? randomBytes(64).toString('base64url')
const sessionSecret = process.env.SESSION_SECRET ?? randomBytes(32).toString('hex')
const users = process.env.USERS_DB ? openUsers(process.env.USERS_DB) : null
const verifyJwt = createVerifier({ key: secret, algorithms: ['HS512'], cache: 1000 })
const signJwt = createSigner({ key: secret, algorithm: 'HS512' })
const sessions = new Map()
const trowelHome = users && process.env.APP_KEY && process.env.TROWEL_DB ? trowelSession(process.env.APP_KEY, process.env.TROWEL_DB, users.toJson) : null

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'x-content-type-options': 'nosniff' }

function send(res, status, data, extra) {
  const body = JSON.stringify(data)
  res.writeHead(status, { ...JSON_HEADERS, 'content-length': Buffer.byteLength(body), ...extra })
  res.end(body)
}

const unauthorized = (res) => send(res, 401, { message: 'Unauthenticated.' }, { 'www-authenticate': 'Bearer' })

function bearer(req) {
  const h = req.headers.authorization
  return typeof h === 'string' && /^bearer /i.test(h) ? h.slice(7) : null
}

function readJson(req) {
  return new Promise((resolve) => {
    let data = ''
    req.setEncoding('utf8')
    req.on('data', (c) => {
      data += c
      if (data.length > 65_536) req.destroy()
    })
    req.on('end', () => {
      try {
        resolve(JSON.parse(data))
      } catch {
        resolve(null)
      }
    })
  })
}

const sign = (value) => createHmac('sha256', sessionSecret).update(value).digest('base64url')

function sessionUser(req) {
  const header = req.headers.cookie
  if (!header) return null
  const m = /(?:^|;\s*)sid=([^;]+)/.exec(header)
  if (!m) return null
  const [sid, mac] = m[1].split('.')
  if (!sid || !mac) return null
  const expected = Buffer.from(sign(sid))
  const given = Buffer.from(mac)
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null
  return sessions.get(sid) ?? null
}

async function checkPassword(body) {
  if (!body || typeof body.username !== 'string' || typeof body.password !== 'string') return null
  const row = users.byEmail(body.username)
  if (!row) return null
  return (await argon2Verify(row.password, body.password)) ? row : null
}

async function handle(req, res) {
  const url = req.url
  if (req.method === 'GET' && url === '/bench/json') return send(res, 200, { hello: 'world' })
  if (!users) return send(res, 404, { message: 'Not found.' })
  if (req.method === 'GET' && (url === '/api/me' || url === '/api/me-checked')) {
    const token = bearer(req)
    if (!token) return unauthorized(res)
    let payload
    try {
      payload = verifyJwt(token)
    } catch {
      return unauthorized(res)
    }
    const row = users.byId(payload.sub)
    if (!row) return unauthorized(res)
    if (url === '/api/me-checked') {
      const digest = Buffer.from(createHash('sha256').update(token).digest('hex'))
      const stored = Buffer.from(String(row.api_token ?? ''))
      if (stored.length !== digest.length || !timingSafeEqual(stored, digest)) return unauthorized(res)
    }
    return send(res, 200, { data: users.toJson(row) })
  }
  if (req.method === 'POST' && url === '/api/auth') {
    const row = await checkPassword(await readJson(req))
    if (!row) return send(res, 401, { message: 'Could not find username or password', code: 'E_INVALID_CREDENTIALS' })
    const token = signJwt({ sub: String(row.id), jti: randomBytes(16).toString('base64url'), version: null })
    users.setToken(row.id, createHash('sha256').update(token).digest('hex'))
    return send(res, 200, { data: token })
  }
  if (req.method === 'POST' && url === '/login') {
    const row = await checkPassword(await readJson(req))
    if (!row) return send(res, 401, { message: 'The email or password is incorrect.' })
    const sid = randomBytes(24).toString('base64url')
    sessions.set(sid, { userId: row.id })
    return send(res, 200, { ok: true }, { 'set-cookie': `sid=${sid}.${sign(sid)}; Path=/; HttpOnly; SameSite=Lax` })
  }
  if (req.method === 'GET' && url === '/bench/home' && trowelHome) {
    const r = trowelHome(req.headers.cookie)
    if (r.status !== 200) return send(res, 401, { message: 'Unauthenticated.' })
    return send(res, 200, r.body, r.setCookie ? { 'set-cookie': r.setCookie } : undefined)
  }
  if (req.method === 'GET' && url === '/home') {
    const session = sessionUser(req)
    const row = session && users.byId(session.userId)
    if (!row) return send(res, 401, { message: 'Unauthenticated.' })
    return send(res, 200, { data: users.toJson(row) })
  }
  return send(res, 404, { message: 'Not found.' })
}

createServer((req, res) => {
  handle(req, res).catch(() => {
    if (!res.headersSent) send(res, 500, { message: 'Internal server error.' })
  })
}).listen(Number(process.env.PORT), '127.0.0.1')

// Exit through process.exit so `--cpu-prof` can write its profile.
process.once('SIGTERM', () => process.exit(0))
