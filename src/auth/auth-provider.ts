/**
 * @module auth/auth-provider
 * Wires web authentication from `config/auth.ts` (`GUARDS`): the hasher (argon2id), the password
 * policy, the login throttle (see `throttleDriver()`), the per-device login tokens, the password broker (mail through the
 * app's `app/mailables/ResetPassword.ts` when present) and the `web` guard; then `ctx.auth`.
 */
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { ServiceProvider } from '../foundation/service-provider.js'
import { importAppModule } from '../foundation/bootstrap.js'
import type { HttpContext } from '../http/context.js'
import { db } from '../database/database-manager.js'
import { Hasher, PasswordPolicy } from './hashing/index.js'
import { LoginThrottle, MemoryThrottleStore, DatabaseThrottleStore, RedisThrottleStore, throttleTableMigration, THROTTLE_TABLE, type ThrottleStore } from './throttle/index.js'
import { CredentialVerifier } from './credential-verifier.js'
import { LoginTokenRepository } from './login-token-repository.js'
import { PasswordBroker } from './password-broker.js'
import { AuthManager, type AuthGuardsConfig } from './auth-manager.js'
import { WebGuard } from './guards/web-guard.js'
import { Auth } from './auth.js'
import { AuthConfigError } from './errors.js'
import { Mailable, type Mailer } from '../mail/index.js'

// ioredis is loaded only when a redis driver is configured (it costs start-up time and memory).
const requireModule = createRequire(import.meta.url)

class DefaultResetPassword extends Mailable {
  constructor(private readonly user: { name?: string; email: string }, private readonly url: string, private readonly expiresIn: number | null) {
    super()
  }
  override async build() {
    this.to(this.user.email)
      .subject('Reset your password')
      .view('mailables/auth/reset_password', { user: this.user, url: this.url, expires_in: this.expiresIn })
  }
}

const SERVER_DATABASES = new Set(['postgres', 'pg', 'postgresql', 'mysql', 'mysql2', 'mariadb'])

/**
 * Where failed-login counts live: `THROTTLE_DRIVER` (memory, database, redis); else the session
 * driver when that is shared (database, redis); else `redis` when `REDIS_URL` is set; else
 * `database` when the app uses a database server (`DB_CONNECTION` postgres or mysql: other
 * processes or machines may share it) or serves several worker processes (`TROWEL_WORKERS` > 1,
 * set by `craft serve --workers`); else memory (one process on SQLite).
 */
export function throttleDriver(): 'memory' | 'database' | 'redis' {
  const explicit = (process.env.THROTTLE_DRIVER ?? '').toLowerCase()
  if (explicit === 'memory' || explicit === 'database' || explicit === 'redis') return explicit
  const session = (process.env.SESSION_DRIVER ?? '').toLowerCase()
  if (session === 'database' || session === 'redis') return session
  if (process.env.REDIS_URL) return 'redis'
  if (SERVER_DATABASES.has((process.env.DB_CONNECTION ?? '').toLowerCase())) return 'database'
  return Number(process.env.TROWEL_WORKERS ?? '1') > 1 ? 'database' : 'memory'
}

/** Creates the throttle table on first use (apps do not ship its migration). */
class AutoCreatingThrottleStore implements ThrottleStore {
  #ready?: Promise<void>
  constructor(private readonly inner: ThrottleStore, private readonly knex: () => ReturnType<typeof db>) {}
  #ensure(): Promise<void> {
    this.#ready ??= (async () => {
      const schema = this.knex().schema
      if (await schema.hasTable(THROTTLE_TABLE)) return
      try {
        await throttleTableMigration(this.knex().schema)
      } catch (error) {
        if (!(await this.knex().schema.hasTable(THROTTLE_TABLE))) throw error
      }
    })().catch((error) => {
      this.#ready = undefined
      throw error
    })
    return this.#ready
  }
  async hit(key: string, windowSeconds: number) {
    await this.#ensure()
    return this.inner.hit(key, windowSeconds)
  }
  async get(key: string) {
    await this.#ensure()
    return this.inner.get(key)
  }
  async clear(key: string) {
    await this.#ensure()
    return this.inner.clear(key)
  }
}

export class AuthProvider extends ServiceProvider {
  static providerName = 'AuthProvider'

  override register(): void {
    const app = this.application
    app.singleton('hasher', () => new Hasher())
    app.singleton('auth.throttle', () => new LoginThrottle(this.#throttleStore()))
    app.singleton('auth.verifier', () => new CredentialVerifier(app.make('hasher'), app.make('auth.throttle'), app.log))
    app.singleton('auth.manager', () => this.#manager())
    app.bind('http.context.auth', (ctx: HttpContext) => new Auth(ctx, app.make<AuthManager>('auth.manager')))
  }

  override async boot(): Promise<void> {
    const app = this.application
    const config = this.#config()
    if (!config) return
    const model = (config[config.default] as { model?: unknown } | undefined)?.model
    if (!model && app.get('app.mode') === 'http') {
      throw new AuthConfigError(`config/auth.ts: GUARDS.${config.default}.model must be your User model.`)
    }
    const mailableFile = ['ts', 'js'].map((e) => app.path(`app/mailables/ResetPassword.${e}`)).find((f) => existsSync(f))
    if (mailableFile) {
      const mod = await importAppModule(mailableFile, 'app/mailables/ResetPassword.ts')
      app.bind('auth.reset_mailable', mod.ResetPassword ?? mod.default ?? DefaultResetPassword)
    } else {
      app.bind('auth.reset_mailable', DefaultResetPassword)
    }
  }

  #config(): AuthGuardsConfig | undefined {
    return this.application.config('auth')?.GUARDS
  }

  #throttleStore(): ThrottleStore {
    const app = this.application
    const driver = throttleDriver()
    if (driver === 'redis') {
      const { Redis } = requireModule('ioredis') as typeof import('ioredis')
      const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: 2 })
      app.onShutdown(() => redis.quit().catch(() => redis.disconnect()))
      return new RedisThrottleStore(redis)
    }
    if (driver === 'database') return new AutoCreatingThrottleStore(new DatabaseThrottleStore(db()), () => db())
    return new MemoryThrottleStore()
  }

  #manager(): AuthManager {
    const app = this.application
    const config = this.#config()
    if (!config) throw new AuthConfigError('config/auth.ts is missing or does not export GUARDS.')
    const model = (config[config.default] as { model?: any } | undefined)?.model
    const hasher = app.make<Hasher>('hasher')
    const tokens = new LoginTokenRepository(() => db(), {
      table: 'login_tokens',
      lifetime: typeof config.login_lifetime === 'number' ? config.login_lifetime : 20160,
    })
    const expiration = config.password_reset_expiration === undefined ? 1440 : config.password_reset_expiration
    const appUrl = String(app.config('application')?.APPLICATION?.url ?? process.env.APP_URL ?? 'http://127.0.0.1:8000')
    const broker = new PasswordBroker({
      db: () => db(),
      model,
      table: config.password_reset_table ?? 'password_resets',
      expiration,
      appUrl,
      hash: (password) => hasher.hash(password),
      revokeAllLogins: (userId, trx) => tokens.revokeAll(userId, trx),
      send: async (user, url, expiresIn) => {
        const MailableClass = app.make('auth.reset_mailable')
        const mailable = new MailableClass(user, url, expiresIn)
        await app.make<Mailer>('mailer').send(mailable)
        app.log.info('auth.reset_mail_sent', { user_id: user.getKey() })
      },
      onSendError: (error, user) => app.log.error('auth.reset_mail_failed', { user_id: user.getKey(), error: (error as Error).message }),
    })
    const manager = new AuthManager({
      config,
      hasher,
      policy: new PasswordPolicy(),
      verifier: app.make<CredentialVerifier>('auth.verifier'),
      tokens,
      broker,
    })
    manager.extend('web', (ctx, name) => new WebGuard(name, ctx, { model: (config[name] as { model?: any } | undefined)?.model ?? model, tokens, verifier: manager.verifier }))
    return manager
  }
}
