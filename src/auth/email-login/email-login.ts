/**
 * @module auth/email-login/email-login
 * The `email_login` service (`auth.email_login`): mails an address its sign-in link and code,
 * after the request has been answered, and checks codes against their budgets.
 * - A request takes nothing but a slot of the caller's `email_login` budget (per client address);
 *   the look-up of the account, the row and the mail happen after the answer, so known and unknown
 *   addresses answer alike. An address gets at most one mail per `resend_seconds`
 *   (`email_login_mail`, keyed by the address): a request within it changes nothing.
 * - A code answer takes, before anything is compared, one slot of its code (five per code; past
 *   them the code is ended), then of each `email_code` budget of its address, then of `ip`; past
 *   the address's budgets codes for it are refused until a link of it is used (which clears them).
 *   The work is the same whether or not a code exists: one read, the slots, one HMAC.
 */
import { appName, appUrl } from '../../foundation/config-files.js'
import type { Application } from '../../foundation/application.js'
import type { HttpContext } from '../../http/context.js'
import type { Mailer } from '../../mail/index.js'
import type { AuthManager } from '../auth-manager.js'
import { normalizeEmail } from '../email.js'
import { eventBase } from '../events.js'
import { Budget } from '../throttle/budget.js'
import { clientKey } from '../throttle/client-key.js'
import { ModelUserProvider, type ModelUser } from '../user-providers/model-user-provider.js'
import type { EmailLoginConfig } from './config.js'
import { DefaultEmailLogin } from './mail.js'
import type { EmailLoginRow, EmailLoginStore } from './store.js'

/** Answers for one code before it is ended. */
export const ANSWERS_PER_CODE = 5

/** What a code answer came to. */
export type CodeOutcome = { kind: 'ok'; row: EmailLoginRow } | { kind: 'invalid' } | { kind: 'throttled'; retryAfter: number }

type MailableClass = new (...args: any[]) => import('../../mail/index.js').Mailable

export class EmailLogin {
  readonly request: Budget
  readonly #mail: Budget
  readonly #perCode: Budget
  readonly #perAddress: Budget[]

  constructor(
    readonly app: Application,
    readonly manager: AuthManager,
    readonly config: EmailLoginConfig,
    readonly store: EmailLoginStore,
  ) {
    const throttle = app.make('auth.throttle').store
    this.request = new Budget('email_login', throttle, config.requestBudget)
    this.#mail = new Budget('email_login_mail', throttle, { attempts: 1, minutes: config.resendSeconds / 60 })
    this.#perCode = new Budget('email_code_each', throttle, { attempts: ANSWERS_PER_CODE, minutes: config.minutes })
    this.#perAddress = config.codeBudgets.map((limit, i) => new Budget(i === 0 ? 'email_code' : `email_code_${i}`, throttle, limit))
  }

  /** `APPLICATION.url` (else APP_URL) without a trailing slash. */
  appUrl(): string {
    return appUrl(this.app)
  }

  appName(): string {
    return appName(this.app)
  }

  provider(): ModelUserProvider {
    return new ModelUserProvider(this.manager.resolved.model!)
  }

  /** The account of `address`, or null. */
  async findUser(address: string): Promise<ModelUser | null> {
    if (!this.manager.resolved.model) return null
    return (await this.provider().findForCredentials(address)) as ModelUser | null
  }

  /** Whether an unknown address gets a mail (`register`, with the `registration` feature). */
  registers(): boolean {
    return this.config.register && this.manager.resolved.features.has('registration')
  }

  /**
   * Starts a sign-in for `email` and returns at once: the look-up, the row and the mail run after
   * the answer. Failures are logged (`auth.email_login_failed`), never thrown.
   */
  send(ctx: HttpContext, email: string): void {
    const where = { ip: ctx.request.ip(), request_id: ctx.request.id }
    const address = normalizeEmail(email)
    const work = async (): Promise<void> => {
      const user = await this.findUser(address)
      if (!user && !this.registers()) return
      if ((await this.#mail.take(this.#mail.key(address))) !== null) {
        this.app.log.info('auth.email_login_mail_held_back', { user_id: user?.getKey() ?? null, ...where })
        return
      }
      const { token, code } = await this.store.replace(address, user?.getKey() ?? null, this.config.minutes)
      const url = `${this.appUrl()}/login/email/${token}`
      const Mailable = this.app.get<MailableClass>('auth.email_login_mailable') ?? DefaultEmailLogin
      await this.app.make<Mailer>('mailer').send(new Mailable(address, { code, url, minutes: this.config.minutes, appName: this.appName(), name: user ? (user as Record<string, unknown>).name : null }))
      this.app.log.info('auth.email_login_mail_sent', { user_id: user?.getKey() ?? null, ...where })
      this.manager.events.emit('auth:login_link_sent', { user: user ?? null, guard: this.manager.defaultGuard, ip: where.ip, userAgent: ctx.request.header('user-agent') ?? null, requestId: where.request_id, at: new Date() })
    }
    this.app.background(work, (error) =>
      this.app.log.error('auth.email_login_failed', { ...where, error: error instanceof Error ? error.message : String(error) }),
    )
  }

  /** Checks a code for `email` (see the module comment); a right one is used up. */
  async checkCode(ctx: HttpContext, email: string, code: string): Promise<CodeOutcome> {
    const address = normalizeEmail(email)
    const wellFormed = address !== '' && address.length <= 255 && /^[0-9]{6}$/.test(code)
    const row = wellFormed ? await this.store.findByAddress(address) : null
    const codeKey = this.#perCode.key(row ? `row:${row.token_hash}` : `none:${address}`)
    if ((await this.#perCode.take(codeKey)) !== null) {
      if (row) await this.store.endCode(row)
      return this.#refused(ctx)
    }
    for (const budget of this.#perAddress) {
      const wait = await budget.take(budget.key(address))
      if (wait !== null) return { kind: 'throttled', retryAfter: wait }
    }
    const ip = this.manager.budgets.ip
    const wait = await ip.take(ip.key(clientKey(ctx.request.ip())))
    if (wait !== null) return { kind: 'throttled', retryAfter: wait }
    const used = await this.store.consumeCode(address, wellFormed ? code : '000000', row)
    return used ? { kind: 'ok', row: used } : this.#refused(ctx)
  }

  /** A refused code: `auth:login_code_failed` (the metrics and the audit log count them). */
  #refused(ctx: HttpContext): CodeOutcome {
    this.manager.events.emit('auth:login_code_failed', eventBase(ctx, this.manager.defaultGuard, null))
    return { kind: 'invalid' }
  }

  /** A link of `address` was used: its codes may be answered again. */
  async clearCodeBudgets(address: string): Promise<void> {
    for (const budget of this.#perAddress) await budget.clear(budget.key(address))
  }
}
