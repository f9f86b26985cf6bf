// Express 5 + passport-jwt (JWT, `session: false`) + express-session (server-side session in its
// default MemoryStore) with passport-local and passport.session() + bcrypt (cost 12); tokens
// signed with jsonwebtoken (what passport-jwt verifies with). The session middleware is mounted
// on the session routes only. Environment: PORT, JWT_SECRET, USERS_DB, SESSION_SECRET.
import express from 'express'
import session from 'express-session'
import passport from 'passport'
import { Strategy as JwtStrategy, ExtractJwt } from 'passport-jwt'
import { Strategy as LocalStrategy } from 'passport-local'
import jsonwebtoken from 'jsonwebtoken'
import bcrypt from 'bcrypt'
import { randomBytes } from 'node:crypto'
import { openUsers } from '../../servers/users.mjs'

const users = openUsers(process.env.USERS_DB)
const secret = process.env.JWT_SECRET

passport.use(
  new JwtStrategy({ jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(), secretOrKey: secret, algorithms: ['HS512'] }, (payload, done) => {
    const row = users.byId(payload.sub)
    done(null, row ? users.toJson(row) : false)
  }),
)
passport.use(
  new LocalStrategy((username, password, done) => {
    const row = users.byEmail(username)
    if (!row) return done(null, false)
    bcrypt.compare(password, row.password).then((ok) => done(null, ok ? users.toJson(row) : false), done)
  }),
)
passport.serializeUser((user, done) => done(null, user.id))
passport.deserializeUser((id, done) => {
  const row = users.byId(id)
  done(null, row ? users.toJson(row) : false)
})

const app = express()
app.use(express.json())
app.use(passport.initialize())
const web = [
  session({ secret: process.env.SESSION_SECRET, resave: false, saveUninitialized: false, cookie: { httpOnly: true, sameSite: 'lax' } }),
  passport.session(),
]

app.get('/api/me', passport.authenticate('jwt', { session: false }), (req, res) => {
  res.json({ data: req.user })
})
app.post('/api/auth', passport.authenticate('local', { session: false }), (req, res) => {
  const token = jsonwebtoken.sign({ sub: String(req.user.id), jti: randomBytes(16).toString('base64url'), version: null }, secret, { algorithm: 'HS512' })
  res.json({ data: token })
})
app.post('/login', web, passport.authenticate('local'), (req, res) => {
  res.json({ ok: true })
})
app.get('/home', web, (req, res) => {
  if (!req.isAuthenticated()) return res.status(401).json({ message: 'Unauthorized' })
  res.json({ data: req.user })
})
app.get('/bench/json', (req, res) => {
  res.json({ hello: 'world' })
})
app.listen(Number(process.env.PORT), '127.0.0.1')
