/**
 * @module auth/auth-forms
 * What the generated auth controllers do, kept in the framework so fixes reach every app.
 * Each function takes the request's context and returns what the controller returns.
 */
import type { HttpContext } from '../http/context.js'
import { sameSitePath } from '../http/response.js'
import { TooManyRequestsError, ValidationError } from '../http/errors.js'
import { validate } from '../validation/index.js'
import { UniqueConstraintError } from '../database/errors.js'
import { formatMessage } from '../validation/messages.js'
import { InvalidCredentialsError, PasswordResetRequiredError } from './errors.js'
import { PASSWORD_MESSAGES } from './hashing/password-policy.js'
import { AUTH_MESSAGES } from './messages.js'
import { clientKey } from './throttle/client-key.js'
import { sendVerificationAfterRegistration } from './accounts/email-verification.js'
import { BaseGuard } from './guards/base-guard.js'
import type { Budget } from './throttle/budget.js'
import type { AuthUser } from './types.js'
import { SecondFactorRequiredError } from './login/errors.js'
import { finishWebLogin, PASSWORD_AMR } from './login/flow.js'
import { markPasswordConfirmed } from './middleware/password-confirm-middleware.js'
import { isVerified } from './accounts/verification.js'
import { factorFlags } from './accounts/factor-flags.js'

function auth(ctx: HttpContext) {
  return ctx.auth
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : ''
}

/** Runs the rules, then the password policy: the valid data and every message (none: `{}`). */
export async function checkWithPolicy(ctx: HttpContext, rules: Record<string, string>): Promise<{ data: Record<string, unknown>; errors: Record<string, string[]> }> {
  const passwordField = 'password'
  const input = ctx.request.body // passwords never come from the query string
  let errors: Record<string, string[]> = {}
  let data: Record<string, unknown> = {}
  try {
    data = await validate(input, rules, { db: auth(ctx).manager.db() })
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error
    errors = { ...error.errors }
  }
  const password = input[passwordField]
  if (typeof password === 'string') {
    const problem = auth(ctx).manager.policy.check(password)
    const others = errors[passwordField]
    // A common password is said at once, also beside another message (a confirmation that does
    // not match): fixing the other first would only bring this one up on the next try. A length
    // problem is already among the rules' messages.
    if (problem && !others) errors[passwordField] = [problem]
    else if (problem === PASSWORD_MESSAGES.tooCommon && others) errors[passwordField] = [problem, ...others]
  }
  return { data, errors }
}

/** Runs the rules, then the password policy, and throws one ValidationError with every message. */
async function validateWithPolicy(ctx: HttpContext, rules: Record<string, string>, back?: string): Promise<Record<string, unknown>> {
  const { data, errors } = await checkWithPolicy(ctx, rules)
  if (Object.keys(errors).length > 0) throw new ValidationError(errors, undefined, { back })
  return data
}

/**
 * Takes one slot of `budget` for the client's address (an IPv6 client by its /64). Within the
 * budget: null. Over it: JSON gets 429 `E_TOO_MANY_REQUESTS` with `Retry-After` (thrown); a web
 * form a 302 to `back` with the "too many attempts" message and its input kept (never passwords).
 */
async function spend(ctx: HttpContext, budget: Budget, back: string): Promise<unknown> {
  const { request } = ctx
  const wait = await budget.take(budget.key(clientKey(request.ip())))
  if (wait === null) return null
  const error = new TooManyRequestsError(wait)
  ctx.app.log.warn(`auth.${budget.name}_throttled`, { ip: request.ip(), request_id: request.id, retry_after: error.retryAfter })
  if (request.wantsJson() || !ctx.hasSession) throw error
  ctx.session.flash('error', AUTH_MESSAGES.throttled(error.retryAfter))
  ctx.session.flashInput(request.body)
  return ctx.response.redirect(back)
}

/** Visitors only: a logged-in user asking for a login, register or reset form goes to /home. */
async function guestsOnly(ctx: HttpContext): Promise<unknown> {
  return (await auth(ctx).check()) ? ctx.response.redirect('/home') : null
}

export const AuthForms = {
  /** GET /login (logged in: 302 to /home) */
  async showLogin(ctx: HttpContext): Promise<unknown> {
    const home = await guestsOnly(ctx)
    if (home) return home
    const next = sameSitePath(ctx.request.input('next'))
    // The "Remember me" checkbox is shown only when the feature is on.
    const { features } = auth(ctx).manager.resolved
    return ctx.view.render('auth/login', { next, remember_me: features.has('remember_me'), passkeys: features.has('passkeys') })
  },

  /** POST /login: 302 to `next` (same-site paths only) or /home; failure 302 to /login. */
  async login(ctx: HttpContext): Promise<unknown> {
    const { request, response, session } = ctx
    // Credentials from the body only, never from the query string.
    const email = request.post('email') ?? request.post('username')
    const password = request.post('password')
    // The "Remember me" checkbox (sent only when ticked); honoured only with the `remember_me` feature.
    const remember = ['1', 'on', 'true', 'yes'].includes(text(request.post('remember')))
    const next = sameSitePath(request.input('next'))
    const back = next ? `/login?next=${encodeURIComponent(next)}` : '/login'
    const guard = auth(ctx).resolve()
    // The web guard checks the password here and finishes in the login flow with what the form
    // asked ("remember me", `next`); another default guard logs in its own way (auth.attempt).
    const web = guard instanceof BaseGuard && guard.driverName === 'session'
    let user: AuthUser | null
    try {
      user = web ? await guard.verifyCredentials(email, password) : await auth(ctx).attempt(email, password)
    } catch (error) {
      if (error instanceof PasswordResetRequiredError && !request.wantsJson()) {
        session.flash('error', AUTH_MESSAGES.passwordResetRequired)
        session.flashInput({ email: text(email) })
        return response.redirect(back)
      }
      if (error instanceof TooManyRequestsError && !request.wantsJson()) {
        session.flash('error', AUTH_MESSAGES.throttled(error.retryAfter))
        session.flashInput({ email: text(email), ...(remember ? { remember: '1' } : {}) })
        return response.redirect(back)
      }
      throw error
    }
    if (!user) {
      if (request.wantsJson()) throw new InvalidCredentialsError(AUTH_MESSAGES.loginFailed)
      session.flash('error', AUTH_MESSAGES.loginFailed)
      session.flashInput({ email: text(email), ...(remember ? { remember: '1' } : {}) })
      return response.redirect(back)
    }
    if (!web) return response.redirect(next ?? '/home')
    const outcome = await finishWebLogin(ctx, { user, method: 'password', amr: PASSWORD_AMR, remember, next })
    // A user with a second factor: the pending login waits in the session for its second step
    // on the page the login flow names (JSON: 401 E_MFA_REQUIRED).
    if (outcome.status === 'challenge' && request.wantsJson()) throw new SecondFactorRequiredError()
    return response.redirect(outcome.redirect)
  },

  /** POST /logout */
  async logout(ctx: HttpContext): Promise<unknown> {
    await auth(ctx).logout()
    ctx.session.flash('success', AUTH_MESSAGES.loggedOut)
    return ctx.response.redirect('/login')
  },

  /** GET /home: a welcome, and the next useful steps (verify the address, add a second factor). */
  async home(ctx: HttpContext): Promise<string> {
    ctx.response.header('Cache-Control', 'no-store')
    const user = auth(ctx).user()
    const features = auth(ctx).manager.resolved.features
    return ctx.view.render('auth/home', {
      user,
      verification: features.has('email_verification'),
      verified: user ? isVerified(user) : false,
      ...(await factorFlags(ctx, user)),
    })
  },

  /** GET /register (logged in: 302 to /home) */
  async showRegister(ctx: HttpContext): Promise<unknown> {
    return (await guestsOnly(ctx)) ?? ctx.view.render('auth/register', { next: sameSitePath(ctx.request.input('next')) })
  },

  /**
   * POST /register: valid → user created, logged in, 302 /home; invalid → 302 back with errors.
   * One slot of the `register` budget per client address is taken first, before any look-up or
   * hashing. A taken address costs the same hash as a free one (see docs/security.md).
   */
  async register(ctx: HttpContext): Promise<unknown> {
    const manager = auth(ctx).manager
    const throttled = await spend(ctx, manager.budgets.register, '/register')
    if (throttled) return throttled
    const model = manager.model
    const column: string = model.authColumn ?? 'email'
    const { data, errors } = await checkWithPolicy(ctx, {
      name: 'required|string|max:255',
      [column]: `required|string|email|max:255|unique:${model.getTable()},${column}`,
      password: 'required|string|min:8|max:1024|confirmed',
    })
    const fields = Object.keys(errors)
    if (fields.length > 0) {
      // Only the address is taken: a free one would now be hashed (Registrar), so this one is
      // too, and the result thrown away. The answer's cost does not tell whether it exists.
      const taken = fields.length === 1 && errors[column]?.[0] === formatMessage(column, 'unique', {})
      if (taken) await manager.hasher.hash(String(ctx.request.body.password))
      throw new ValidationError(errors)
    }
    try {
      const user = await auth(ctx).register({ name: data.name, [column]: data[column], password: data.password })
      // The password was typed a moment ago: enrolling a second factor right after registering
      // does not ask for it again (`password.confirm`).
      markPasswordConfirmed(ctx)
      // With the `email_verification` feature: the link, mailed in the background (never throws),
      // and a word on the next page that it was sent.
      await sendVerificationAfterRegistration(ctx, user)
      if (manager.resolved.features.has('email_verification') && ctx.hasSession) {
        ctx.session.flash('success', `Welcome! We sent a link to ${String(data[column])} to verify your e-mail address.`)
      }
    } catch (error) {
      if (error instanceof UniqueConstraintError) throw new ValidationError({ [column]: [AUTH_MESSAGES.emailTaken] })
      throw error
    }
    // `next` (same-site paths only): back to the page that sent here, e.g. an invitation.
    return ctx.response.redirect(sameSitePath(ctx.request.input('next')) ?? '/home')
  },

  /** GET /password_reset (logged in: 302 to /home) */
  async showPasswordReset(ctx: HttpContext): Promise<unknown> {
    return (await guestsOnly(ctx)) ?? ctx.view.render('auth/password_reset')
  },

  /**
   * POST /password_reset: the same answer, at the same speed, whether or not the address exists.
   * The input's shape is checked and one slot of the `reset` budget per client address taken;
   * then it answers, and the look-up, token and e-mail happen after (`auth.passwordReset`).
   */
  async sendPasswordReset(ctx: HttpContext): Promise<unknown> {
    await validate(ctx.request.all(), { email: 'required|string|max:255' })
    const throttled = await spend(ctx, auth(ctx).manager.budgets.reset, '/password_reset')
    if (throttled) return throttled
    await auth(ctx).passwordReset(ctx.request.input('email'))
    ctx.session.flash('success', AUTH_MESSAGES.resetSent)
    return ctx.response.redirect('/password_reset')
  },

  /**
   * GET /change_password/@token (or ?token=): the new-password form; for a token that is unknown,
   * used or expired, the "invalid or expired" message instead (`invalid: true`), before anyone
   * types a password. Nothing is consumed.
   */
  async showChangePassword(ctx: HttpContext): Promise<string> {
    ctx.response.header('Referrer-Policy', 'no-referrer')
    ctx.response.header('Cache-Control', 'no-store')
    const token = text(ctx.params.token ?? ctx.request.input('token'))
    if (!(await auth(ctx).manager.broker.isUsable(token))) {
      const messages = { ...(ctx.view.globals().messages as Record<string, unknown>), error: AUTH_MESSAGES.resetInvalid }
      return ctx.view.render('auth/change_password', { token: '', invalid: true, messages })
    }
    return ctx.view.render('auth/change_password', { token })
  },

  /** POST /change_password/@token (or field `token`): 302 /login on success, back with an error otherwise. */
  async changePassword(ctx: HttpContext): Promise<unknown> {
    const token = text(ctx.params.token ?? ctx.request.input('token'))
    const back = token && /^[A-Za-z0-9_-]+$/.test(token) ? `/change_password/${token}` : '/password_reset'
    // Back to the form that carries the token (the page sends no Referer: Referrer-Policy no-referrer).
    const data = await validateWithPolicy(ctx, { password: 'required|string|min:8|max:1024|confirmed' }, back)
    const user = await auth(ctx).resetPassword(token, data.password as string)
    if (!user) {
      if (ctx.request.wantsJson()) throw new ValidationError({ token: [AUTH_MESSAGES.resetInvalid] })
      ctx.session.flash('error', AUTH_MESSAGES.resetInvalid)
      return ctx.response.redirect(back)
    }
    ctx.session.flash('success', AUTH_MESSAGES.passwordChanged)
    return ctx.response.redirect('/login')
  },
}
