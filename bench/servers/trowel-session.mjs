// The raw limit of Trowel's logged-in web request: everything a generated app's `GET` in the
// `web` stack with the `auth` middleware does to find the user, written straight on node:crypto
// and better-sqlite3, nothing around it. It accepts the very cookies a Trowel login set (same
// APP_KEY, same database file), so both servers are driven with one Cookie header and their
// bodies compared byte for byte before anything is measured. Per request:
//   1. `trowel_session`: AES-256-GCM with the HKDF-SHA256 key "trowel cookie encryption" of
//      APP_KEY, the cookie name as AAD, canonical base64url only; JSON `{ id, data }`; the session
//      idle (`lifetime`, 120 min) and absolute (`absolute_lifetime`, 7 days) checks;
//   2. `trowel_auth`: `s.<base64url token>.<HMAC-SHA256>` with the key "trowel cookie signing",
//      the cookie name bound into the MAC, compared in constant time (both cookies' values kept
//      once they pass, by their exact text, as Trowel's cookie jar keeps them);
//   3. the token's SHA-256 (once), the login row by that digest (a unique index), its lifetime
//      (`login_lifetime`, 14 days) and idle timeout (`GUARDS.web.idle_timeout`, 120 min), its
//      `last_used_at` moved on at most once a minute; the session's `auth.login` binding checked
//      against the same digest (a mismatch rewrites the session, as Trowel does);
//   4. the user by primary key, `{"data": user}` as Trowel's model serializes it;
//   5. a session older than a minute since its last write is written back (re-encrypted), as
//      Trowel's session middleware does.
// What it leaves out is what a framework adds: routing, the middleware pipeline, the request
// context, models, CSRF (a GET verifies nothing), the view context.
import { createCipheriv, createDecipheriv, createHash, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto'
import Database from 'better-sqlite3'

const SESSION_COOKIE = 'trowel_session'
const AUTH_COOKIE = 'trowel_auth'
const SESSION_IDLE_MS = 120 * 60_000
const SESSION_ABSOLUTE_MS = 7 * 24 * 60 * 60_000
const LOGIN_LIFETIME_MS = 20_160 * 60_000
const LOGIN_IDLE_MS = 120 * 60_000
const TOUCH_EVERY_MS = 60_000

/** `appKey`: the app's APP_KEY (`base64:...`); `dbFile`: the app's SQLite database. */
export function trowelSession(appKey, dbFile, toJson) {
  const secret = appKey.startsWith('base64:') ? Buffer.from(appKey.slice(7), 'base64') : Buffer.from(appKey, 'utf8')
  const signKey = Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), 'trowel cookie signing', 32))
  const encryptKey = Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), 'trowel cookie encryption', 32))
  const db = new Database(dbFile)
  const loginByDigest = db.prepare('SELECT user_id, created_at, last_used_at FROM login_tokens WHERE token_hash = ?')
  const touchLogin = db.prepare('UPDATE login_tokens SET last_used_at = ? WHERE token_hash = ?')
  const userById = db.prepare('SELECT * FROM users WHERE id = ?')
  const sessionAad = Buffer.from(SESSION_COOKIE, 'utf8')

  const ms = (v) => (v === null || v === undefined ? null : new Date(v).getTime())

  function cookies(header) {
    const out = {}
    for (const part of header.split(';')) {
      const eq = part.indexOf('=')
      if (eq > 0) out[part.slice(0, eq).trim()] = part.slice(eq + 1).trim()
    }
    return out
  }

  // Values that passed, by their exact text, with the cookie name they passed under: the last
  // 1,000, oldest out first (what Trowel's CookieJar keeps, so a cookie sent again costs neither
  // side another HMAC or AES-GCM).
  const opened = new Map()
  function keep(name, packed, value) {
    if (opened.size >= 1000) opened.delete(opened.keys().next().value)
    opened.set(packed, { name, value })
    return value
  }
  function kept(name, packed) {
    const k = opened.get(packed)
    return k !== undefined && k.name === name ? k.value : undefined
  }

  function decrypt(packed) {
    if (!packed?.startsWith('e.')) return null
    let plain = kept(SESSION_COOKIE, packed)
    if (plain === undefined) {
      const text = packed.slice(2)
      const raw = Buffer.from(text, 'base64url')
      if (raw.length < 28 || raw.toString('base64url') !== text) return null
      try {
        const d = createDecipheriv('aes-256-gcm', encryptKey, raw.subarray(0, 12))
        d.setAAD(sessionAad)
        d.setAuthTag(raw.subarray(raw.length - 16))
        plain = keep(SESSION_COOKIE, packed, Buffer.concat([d.update(raw.subarray(12, raw.length - 16)), d.final()]).toString('utf8'))
      } catch {
        return null
      }
    }
    try {
      return JSON.parse(plain)
    } catch {
      return null
    }
  }

  function encrypt(value) {
    const iv = randomBytes(12)
    const c = createCipheriv('aes-256-gcm', encryptKey, iv)
    c.setAAD(sessionAad)
    const body = Buffer.concat([c.update(value, 'utf8'), c.final()])
    return 'e.' + Buffer.concat([iv, body, c.getAuthTag()]).toString('base64url')
  }

  function unsign(name, packed) {
    if (!packed?.startsWith('s.')) return null
    const known = kept(name, packed)
    if (known !== undefined) return known
    const dot = packed.lastIndexOf('.')
    if (dot <= 2) return null
    const payload = packed.slice(2, dot)
    const given = Buffer.from(packed.slice(dot + 1), 'utf8')
    const expected = Buffer.from(createHmac('sha256', signKey).update(name).update('=').update(payload).digest('base64url'), 'utf8')
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null
    return keep(name, packed, Buffer.from(payload, 'base64url').toString('utf8'))
  }

  /** `{ status, body, setCookie? }` for GET /bench/home. */
  return function home(cookieHeader) {
    const jar = cookieHeader ? cookies(cookieHeader) : {}
    const now = Date.now()
    let session = decrypt(jar[SESSION_COOKIE])
    const data = session?.data
    if (!data || now - data.lastActivity > SESSION_IDLE_MS || now - data.createdAt > SESSION_ABSOLUTE_MS) session = null
    const token = unsign(AUTH_COOKIE, jar[AUTH_COOKIE])
    if (!token || token.length < 20 || token.length > 200) return { status: 401 }
    const digest = createHash('sha256').update(token).digest('hex')
    const login = loginByDigest.get(digest)
    if (!login) return { status: 401 }
    const created = ms(login.created_at)
    const lastUsed = ms(login.last_used_at) ?? created
    if (created === null || now - created > LOGIN_LIFETIME_MS || now - lastUsed > LOGIN_IDLE_MS) return { status: 401 }
    if (now - lastUsed > TOUCH_EVERY_MS) touchLogin.run(now, digest)
    const user = userById.get(login.user_id)
    if (!user) return { status: 401 }
    let dirty = false
    if (session && session.data.values['auth.login'] !== digest) {
      session.data.values['auth.login'] = digest
      dirty = true
    }
    let setCookie
    if (session && (dirty || now - session.data.lastActivity > TOUCH_EVERY_MS)) {
      session.data.lastActivity = now
      const maxAge = Math.max(1, Math.ceil(Math.min(SESSION_IDLE_MS, session.data.createdAt + SESSION_ABSOLUTE_MS - now) / 1000))
      setCookie = `${SESSION_COOKIE}=${encrypt(JSON.stringify(session))}; Max-Age=${maxAge}; Path=/; HttpOnly; SameSite=Lax`
    }
    return { status: 200, body: { data: toJson(user) }, setCookie }
  }
}
