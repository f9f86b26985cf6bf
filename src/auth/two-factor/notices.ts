/**
 * @module auth/two-factor/notices
 * What the account pages say about the `two_factor` events: their words on the activity page
 * and the security e-mails they send (the module's `activityLabels` and `securityNotices`).
 */
import type { SecurityNoticeRule } from '../features/contract.js'

declare module '../mail/default-security-notice.js' {
  interface SecurityNoticeKinds {
    two_factor_enabled: true
    two_factor_disabled: true
    /** The 5th wrong second-factor answer within an hour (the password is known). */
    second_factor_failed: true
  }
}

/** The `two_factor` events in plain words (the account's activity page). */
export const ACTIVITY_LABELS = {
  'auth:two_factor_enabled': 'Two-factor authentication turned on',
  'auth:two_factor_disabled': 'Two-factor authentication turned off',
  'auth:two_factor_failed': 'Wrong two-factor code',
} as const

/**
 * | Switch | Events |
 * |---|---|
 * | `two_factor` | `auth:two_factor_enabled`, `auth:two_factor_disabled` |
 * | `second_factor_failed` | `auth:two_factor_failed` with `repeated` (5 wrong answers in an hour after a right password) |
 */
export const SECURITY_NOTICES: Readonly<Record<string, SecurityNoticeRule>> = {
  'auth:two_factor_enabled': {
    notification: 'two_factor',
    kind: 'two_factor_enabled',
    subject: 'Two-factor authentication was turned on',
    summary: () => 'Two-factor authentication was turned on for your account.',
    // The TOTP enrolment, named by the user's id (for a payload without its `item`).
    item: (_event, userId) => ({ kind: 'totp', id: String(userId) }),
  },
  'auth:two_factor_disabled': {
    notification: 'two_factor',
    kind: 'two_factor_disabled',
    subject: 'Two-factor authentication was turned off',
    summary: () => 'Two-factor authentication was turned off for your account.',
  },
  'auth:two_factor_failed': {
    notification: 'second_factor_failed',
    kind: 'second_factor_failed',
    subject: 'Someone may have your password',
    summary: () => 'Your password was entered correctly, then the two-factor code was wrong several times in a row. If that was not you, someone knows your password: change it.',
    when: (event) => event.repeated === true,
  },
}
