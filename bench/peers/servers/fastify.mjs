// Fastify 5 + @fastify/jwt (JWT) + @fastify/cookie and @fastify/session (server-side session in
// its default in-memory store) + bcrypt (cost 12) for the password check. Defaults everywhere
// except what the endpoints need. Environment: PORT, JWT_SECRET, USERS_DB, SESSION_SECRET.
import Fastify from 'fastify'
import fastifyJwt from '@fastify/jwt'
import fastifyCookie from '@fastify/cookie'
import fastifySession from '@fastify/session'
import bcrypt from 'bcrypt'
import { randomBytes } from 'node:crypto'
import { openUsers } from '../../servers/users.mjs'

const users = openUsers(process.env.USERS_DB)
const app = Fastify({ logger: false })

await app.register(fastifyJwt, { secret: process.env.JWT_SECRET, sign: { algorithm: 'HS512' }, verify: { algorithms: ['HS512'] } })

// JWT endpoints, no session.
await app.register(async (api) => {
  api.get('/api/me', { onRequest: [(request) => request.jwtVerify()] }, async (request, reply) => {
    const row = users.byId(request.user.sub)
    if (!row) return reply.code(401).send({ message: 'Unauthorized' })
    return { data: users.toJson(row) }
  })
  api.post('/api/auth', async (request, reply) => {
    const { username, password } = request.body ?? {}
    const row = typeof username === 'string' ? users.byEmail(username) : undefined
    if (!row || typeof password !== 'string' || !(await bcrypt.compare(password, row.password))) {
      return reply.code(401).send({ message: 'Could not find username or password', code: 'E_INVALID_CREDENTIALS' })
    }
    return { data: app.jwt.sign({ sub: String(row.id), jti: randomBytes(16).toString('base64url'), version: null }) }
  })
})

// Session endpoints.
await app.register(async (web) => {
  await web.register(fastifyCookie)
  await web.register(fastifySession, { secret: process.env.SESSION_SECRET, cookie: { secure: false, httpOnly: true, sameSite: 'lax' }, saveUninitialized: false })
  web.post('/login', async (request, reply) => {
    const { username, password } = request.body ?? {}
    const row = typeof username === 'string' ? users.byEmail(username) : undefined
    if (!row || typeof password !== 'string' || !(await bcrypt.compare(password, row.password))) {
      return reply.code(401).send({ message: 'The email or password is incorrect.' })
    }
    await request.session.regenerate()
    request.session.set('userId', row.id)
    return { ok: true }
  })
  web.get('/home', async (request, reply) => {
    const id = request.session.get('userId')
    const row = id === undefined ? undefined : users.byId(id)
    if (!row) return reply.code(401).send({ message: 'Unauthorized' })
    return { data: users.toJson(row) }
  })
})

app.get('/bench/json', async () => ({ hello: 'world' }))
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' })
