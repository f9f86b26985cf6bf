// Hono 4 on @hono/node-server + hono/jwt (JWT) + bcrypt (cost 12). Hono has no session
// middleware of its own: the session case is its documented signed-cookie helper
// (hono/cookie setSignedCookie/getSignedCookie) with the session kept server-side in a Map.
// Environment: PORT, JWT_SECRET, USERS_DB, SESSION_SECRET.
import { Hono } from 'hono'
import { serve } from '@hono/node-server'
import { jwt, sign } from 'hono/jwt'
import { getSignedCookie, setSignedCookie } from 'hono/cookie'
import bcrypt from 'bcrypt'
import { randomBytes } from 'node:crypto'
import { openUsers } from '../../servers/users.mjs'

const users = openUsers(process.env.USERS_DB)
const secret = process.env.JWT_SECRET
const sessionSecret = process.env.SESSION_SECRET
const sessions = new Map()
const app = new Hono()

app.use('/api/me', jwt({ secret, alg: 'HS512' }))
app.get('/api/me', (c) => {
  const row = users.byId(c.get('jwtPayload').sub)
  if (!row) return c.json({ message: 'Unauthorized' }, 401)
  return c.json({ data: users.toJson(row) })
})

async function check(c) {
  let body
  try {
    body = await c.req.json()
  } catch {
    return null
  }
  const row = typeof body?.username === 'string' ? users.byEmail(body.username) : undefined
  if (!row || typeof body.password !== 'string' || !(await bcrypt.compare(body.password, row.password))) return null
  return row
}

app.post('/api/auth', async (c) => {
  const row = await check(c)
  if (!row) return c.json({ message: 'Could not find username or password', code: 'E_INVALID_CREDENTIALS' }, 401)
  const now = Math.floor(Date.now() / 1000)
  return c.json({ data: await sign({ sub: String(row.id), iat: now, jti: randomBytes(16).toString('base64url'), version: null }, secret, 'HS512') })
})

app.post('/login', async (c) => {
  const row = await check(c)
  if (!row) return c.json({ message: 'The email or password is incorrect.' }, 401)
  const sid = randomBytes(24).toString('base64url')
  sessions.set(sid, { userId: row.id })
  await setSignedCookie(c, 'sid', sid, sessionSecret, { path: '/', httpOnly: true, sameSite: 'Lax' })
  return c.json({ ok: true })
})

app.get('/home', async (c) => {
  const sid = await getSignedCookie(c, sessionSecret, 'sid')
  const session = sid ? sessions.get(sid) : undefined
  const row = session ? users.byId(session.userId) : undefined
  if (!row) return c.json({ message: 'Unauthorized' }, 401)
  return c.json({ data: users.toJson(row) })
})

app.get('/bench/json', (c) => c.json({ hello: 'world' }))
serve({ fetch: app.fetch, port: Number(process.env.PORT), hostname: '127.0.0.1' })
