import { User } from '../app/models/User.js'

export const GUARDS = {
  default: 'web',
  /**
   * The web guard. Optional keys beside `model`: remember_lifetime (minutes a "remember me" login
   * lasts, default 43200 = 30 days), remember_reuse_window (seconds a replaced "remember me" token
   * still restores its successor's login instead of counting as theft, default 10),
   * password_timeout (minutes a typed password satisfies `password.confirm`, default 15),
   * idle_timeout (minutes without a request after which a login ends, default 120, null = never).
   */
  web: { model: User },
  /** What Auth.routes() serves; remove a feature to turn its pages off. */
  features: ['registration', 'reset_passwords', 'remember_me', 'email_verification', 'account', 'social', 'two_factor', 'passkeys'],
  /** Security e-mails to the account's owner, each with a "This wasn't me" link; false turns one off. */
  notifications: {
    new_device: true,
    password_changed: true,
    email_changed: true,
    account_locked: true,
    two_factor: true,
    passkeys: true,
    token_reuse: true,
    token_created: true,
    second_factor_failed: true,
    social_linked: true,
  },
  password_reset_table: 'password_resets',
  /** Minutes a password-reset link stays valid (fractions allowed); null = never expires. */
  password_reset_expiration: 1440,
  /**
   * Attempt budgets ({ attempts, minutes }; null turns one off): login attempts per address+IP, per IP
   * and per account; registrations and reset requests per IP; verification e-mails per account;
   * password confirmations per account; wrong two-factor codes per pending login.
   */
  throttle: {
    login: { attempts: 5, minutes: 1 },
    ip: { attempts: 100, minutes: 60 },
    account: { attempts: 100, minutes: 60 },
    register: { attempts: 10, minutes: 1 },
    reset: { attempts: 10, minutes: 1 },
    verify: { attempts: 6, minutes: 1 },
    confirm: { attempts: 5, minutes: 1 },
    two_factor: { attempts: 5, minutes: 1 },
  },
  /** The `mfa` middleware: days after sign-up a user without a second factor may still pass. */
  mfa: { grace_days: 0 },
  /** The audit log (table auth_events, `node craft auth:events`): rows older than keep_days are pruned. */
  audit: { enabled: true, keep_days: 365 },
}
