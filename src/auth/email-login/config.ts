/**
 * @module auth/email-login/config
 * `GUARDS.email_login` (`{ minutes: 15, resend_seconds: 60, register: false }` when absent) and the
 * feature's budgets of `GUARDS.throttle`: `email_login` (requests per client address, default 10 a
 * minute) and `email_code` (code answers per address, default 10 an hour and 20 a day; one limit or
 * a list of them). A mistake stops the app at startup with a message naming the key.
 */
import { AuthConfigError } from '../errors.js'
import type { BudgetLimit } from '../auth-config.js'

export interface EmailLoginConfig {
  /** Minutes a mailed link and code live. */
  minutes: number
  /** Seconds between two mails to one address. */
  resendSeconds: number
  /** Whether an address without an account gets a mail whose first use creates the account. */
  register: boolean
  /** Requests per client address; null: off. */
  requestBudget: BudgetLimit | null
  /** Code answers per address, each limit its own window. */
  codeBudgets: BudgetLimit[]
}

export const EMAIL_LOGIN_DEFAULTS = { minutes: 15, resendSeconds: 60, register: false }
const DEFAULT_REQUEST_BUDGET: BudgetLimit = { attempts: 10, minutes: 1 }
const DEFAULT_CODE_BUDGETS: BudgetLimit[] = [
  { attempts: 10, minutes: 60 },
  { attempts: 20, minutes: 24 * 60 },
]

function limit(value: unknown, key: string): BudgetLimit {
  const { attempts, minutes } = (value ?? {}) as { attempts?: unknown; minutes?: unknown }
  if (!Number.isInteger(attempts) || (attempts as number) < 1 || typeof minutes !== 'number' || !Number.isFinite(minutes) || minutes <= 0) {
    throw new AuthConfigError(`config/auth.ts: GUARDS.throttle.${key} must be { attempts: a whole number from 1, minutes: a positive number } or null.`)
  }
  return { attempts: attempts as number, minutes }
}

function positive(value: unknown, key: string, fallback: number): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) throw new AuthConfigError(`config/auth.ts: GUARDS.email_login.${key} must be a positive number.`)
  return value
}

export function resolveEmailLoginConfig(guards: Record<string, unknown> | undefined): EmailLoginConfig {
  const given = guards?.email_login
  if (given !== undefined && (!given || typeof given !== 'object')) throw new AuthConfigError('config/auth.ts: GUARDS.email_login must be { minutes, resend_seconds, register }.')
  const own = (given ?? {}) as Record<string, unknown>
  if (own.register !== undefined && typeof own.register !== 'boolean') throw new AuthConfigError('config/auth.ts: GUARDS.email_login.register must be true or false.')
  const throttle = (guards?.throttle ?? {}) as Record<string, unknown>
  const request = throttle.email_login
  const code = throttle.email_code
  return {
    minutes: positive(own.minutes, 'minutes', EMAIL_LOGIN_DEFAULTS.minutes),
    resendSeconds: positive(own.resend_seconds, 'resend_seconds', EMAIL_LOGIN_DEFAULTS.resendSeconds),
    register: (own.register as boolean | undefined) ?? EMAIL_LOGIN_DEFAULTS.register,
    requestBudget: request === undefined ? DEFAULT_REQUEST_BUDGET : request === null ? null : limit(request, 'email_login'),
    codeBudgets: code === undefined ? DEFAULT_CODE_BUDGETS : code === null ? [] : Array.isArray(code) ? code.map((c) => limit(c, 'email_code')) : [limit(code, 'email_code')],
  }
}
