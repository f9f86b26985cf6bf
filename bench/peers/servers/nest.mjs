// NestJS 11 (platform-express) + @nestjs/jwt with the guard of Nest's authentication docs
// (Bearer token, `jwtService.verifyAsync`), express-session for the session case (as Nest's
// session docs, mounted on the session routes only) + bcrypt (cost 12). Plain JavaScript, so the
// decorators are applied by hand (what TypeScript compiles `@Decorator()` into).
// Environment: PORT, JWT_SECRET, USERS_DB, SESSION_SECRET.
import 'reflect-metadata'
import { Body, Controller, Get, HttpCode, Injectable, Module, Post, Req, Session, UnauthorizedException, UseGuards } from '@nestjs/common'
import { NestFactory } from '@nestjs/core'
import { JwtModule, JwtService } from '@nestjs/jwt'
import session from 'express-session'
import bcrypt from 'bcrypt'
import { randomBytes } from 'node:crypto'
import { openUsers } from '../../servers/users.mjs'

const users = openUsers(process.env.USERS_DB)

/** TypeScript's __decorate for one method: applies parameter and method decorators. */
function method(cls, name, decorators, params = []) {
  params.forEach((d, i) => d && d(cls.prototype, name, i))
  let descriptor = Object.getOwnPropertyDescriptor(cls.prototype, name)
  for (const d of [...decorators].reverse()) descriptor = d(cls.prototype, name, descriptor) ?? descriptor
  Object.defineProperty(cls.prototype, name, descriptor)
}
function inject(cls, deps) {
  Reflect.defineMetadata('design:paramtypes', deps, cls)
}

class AuthGuard {
  constructor(jwtService) {
    this.jwtService = jwtService
  }

  async canActivate(context) {
    const request = context.switchToHttp().getRequest()
    const [type, token] = request.headers.authorization?.split(' ') ?? []
    if (type !== 'Bearer' || !token) throw new UnauthorizedException()
    try {
      request.user = await this.jwtService.verifyAsync(token)
    } catch {
      throw new UnauthorizedException()
    }
    return true
  }
}
Injectable()(AuthGuard)
inject(AuthGuard, [JwtService])

async function checkPassword(body) {
  const row = typeof body?.username === 'string' ? users.byEmail(body.username) : undefined
  if (!row || typeof body.password !== 'string' || !(await bcrypt.compare(body.password, row.password))) return null
  return row
}

class ApiController {
  constructor(jwtService) {
    this.jwtService = jwtService
  }

  me(req) {
    const row = users.byId(req.user.sub)
    if (!row) throw new UnauthorizedException()
    return { data: users.toJson(row) }
  }

  async auth(body) {
    const row = await checkPassword(body)
    if (!row) throw new UnauthorizedException('Could not find username or password')
    return { data: await this.jwtService.signAsync({ sub: String(row.id), jti: randomBytes(16).toString('base64url'), version: null }) }
  }
}
method(ApiController, 'me', [Get('me'), UseGuards(AuthGuard)], [Req()])
method(ApiController, 'auth', [Post('auth'), HttpCode(200)], [Body()])
Controller('api')(ApiController)
inject(ApiController, [JwtService])

class WebController {
  async login(body, sess) {
    const row = await checkPassword(body)
    if (!row) throw new UnauthorizedException('The email or password is incorrect.')
    sess.userId = row.id
    return { ok: true }
  }

  home(sess) {
    const row = sess.userId === undefined ? undefined : users.byId(sess.userId)
    if (!row) throw new UnauthorizedException()
    return { data: users.toJson(row) }
  }

  json() {
    return { hello: 'world' }
  }
}
method(WebController, 'login', [Post('login'), HttpCode(200)], [Body(), Session()])
method(WebController, 'home', [Get('home')], [Session()])
method(WebController, 'json', [Get('bench/json')])
Controller()(WebController)

class AppModule {}
Module({
  imports: [JwtModule.register({ secret: process.env.JWT_SECRET, signOptions: { algorithm: 'HS512' }, verifyOptions: { algorithms: ['HS512'] } })],
  controllers: [ApiController, WebController],
  providers: [AuthGuard],
})(AppModule)

const app = await NestFactory.create(AppModule, { logger: ['error', 'warn'] })
app.use(['/login', '/home'], session({ secret: process.env.SESSION_SECRET, resave: false, saveUninitialized: false, cookie: { httpOnly: true, sameSite: 'lax' } }))
await app.listen(Number(process.env.PORT), '127.0.0.1')
