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
import { db } from '../database/database-manager.js'
import type { Auth } from './auth.js'
import { InvalidCredentialsError } from './errors.js'
import { AUTH_MESSAGES } from './messages.js'

function auth(ctx: HttpContext): Auth {
  return ctx.auth as Auth
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : ''
}

/** Runs the rules, then the password policy, and throws one ValidationError with every message. */
async function validateWithPolicy(ctx: HttpContext, rules: Record<string, string>, back?: string): Promise<Record<string, unknown>> {
  const passwordField = 'password'
  const input = ctx.request.body // passwords never come from the query string
  let errors: Record<string, string[]> = {}
  let data: Record<string, unknown> = {}
  try {
    data = await validate(input, rules, { db: db() })
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error
    errors = { ...error.errors }
  }
  const password = input[passwordField]
  if (typeof password === 'string' && !errors[passwordField]) {
    const problem = auth(ctx).manager.policy.check(password)
    if (problem) errors[passwordField] = [problem]
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors, undefined, { back })
  return data
}

export const AuthForms = {
  /** GET /login */
  showLogin(ctx: HttpContext): string {
    const next = sameSitePath(ctx.request.input('next'))
    return ctx.view.render('auth/login', { next })
  },

  /** POST /login: 302 to `next` (same-site paths only) or /home; failure 302 to /login. */
  async login(ctx: HttpContext): Promise<unknown> {
    const { request, response, session } = ctx
    // Credentials from the body only, never from the query string.
    const email = request.post('email') ?? request.post('username')
    const password = request.post('password')
    const next = sameSitePath(request.input('next'))
    const back = next ? `/login?next=${encodeURIComponent(next)}` : '/login'
    let user: unknown
    try {
      user = await auth(ctx).attempt(email, password)
    } catch (error) {
      if (error instanceof TooManyRequestsError && !request.wantsJson()) {
        session.flash('error', AUTH_MESSAGES.throttled(error.retryAfter))
        session.flashInput({ email: text(email) })
        return response.redirect(back)
      }
      throw error
    }
    if (!user) {
      if (request.wantsJson()) throw new InvalidCredentialsError(AUTH_MESSAGES.loginFailed)
      session.flash('error', AUTH_MESSAGES.loginFailed)
      session.flashInput({ email: text(email) })
      return response.redirect(back)
    }
    return response.redirect(next ?? '/home')
  },

  /** POST /logout */
  async logout(ctx: HttpContext): Promise<unknown> {
    await auth(ctx).logout()
    ctx.session.flash('success', AUTH_MESSAGES.loggedOut)
    return ctx.response.redirect('/login')
  },

  /** GET /home */
  home(ctx: HttpContext): string {
    ctx.response.header('Cache-Control', 'no-store')
    return ctx.view.render('auth/home', { user: auth(ctx).user() })
  },

  /** GET /register */
  showRegister(ctx: HttpContext): string {
    return ctx.view.render('auth/register')
  },

  /** POST /register: valid → user created, logged in, 302 /home; invalid → 302 back with errors. */
  async register(ctx: HttpContext): Promise<unknown> {
    const model = auth(ctx).manager.model
    const column: string = model.authColumn ?? 'email'
    const data = await validateWithPolicy(ctx, {
      name: 'required|string|max:255',
      [column]: `required|string|email|max:255|unique:${model.getTable()},${column}`,
      password: 'required|string|min:8|max:1024|confirmed',
    })
    try {
      await auth(ctx).register({ name: data.name, [column]: data[column], password: data.password })
    } catch (error) {
      if (error instanceof UniqueConstraintError) throw new ValidationError({ [column]: [AUTH_MESSAGES.emailTaken] })
      throw error
    }
    return ctx.response.redirect('/home')
  },

  /** GET /password_reset */
  showPasswordReset(ctx: HttpContext): string {
    return ctx.view.render('auth/password_reset')
  },

  /** POST /password_reset: the same answer whether or not the address exists. */
  async sendPasswordReset(ctx: HttpContext): Promise<unknown> {
    await validate(ctx.request.all(), { email: 'required|string|max:255' })
    await auth(ctx).passwordReset(ctx.request.input('email'))
    if (ctx.request.wantsJson()) return { message: AUTH_MESSAGES.resetSent }
    ctx.session.flash('success', AUTH_MESSAGES.resetSent)
    return ctx.response.redirect('/password_reset')
  },

  /** GET /change_password/@token (or ?token=) */
  showChangePassword(ctx: HttpContext): string {
    ctx.response.header('Referrer-Policy', 'no-referrer')
    ctx.response.header('Cache-Control', 'no-store')
    const token = text(ctx.params.token ?? ctx.request.input('token'))
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
    ctx.app.log.info('auth.password_reset', { user_id: (user as { getKey(): unknown }).getKey(), ip: ctx.request.ip() })
    if (ctx.request.wantsJson()) return { message: AUTH_MESSAGES.passwordChanged }
    ctx.session.flash('success', AUTH_MESSAGES.passwordChanged)
    return ctx.response.redirect('/login')
  },
}
