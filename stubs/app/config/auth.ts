import { User } from '../app/models/User.js'

export const GUARDS = {
  default: 'web',
  web: { model: User },
  password_reset_table: 'password_resets',
  /** Minutes a password-reset link stays valid (fractions allowed); null = never expires. */
  password_reset_expiration: 1440,
  /** Attempt budgets ({ attempts, minutes }; null turns one off): login attempts per address+IP, per IP and per account; registrations and reset requests per IP. */
  throttle: {
    login: { attempts: 5, minutes: 1 },
    ip: { attempts: 100, minutes: 60 },
    account: { attempts: 100, minutes: 60 },
    register: { attempts: 10, minutes: 1 },
    reset: { attempts: 10, minutes: 1 },
  },
  /** The audit log (table auth_events, `node craft auth:events`): rows older than keep_days are pruned. */
  audit: { enabled: true, keep_days: 365 },
}
