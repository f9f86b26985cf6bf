import { User } from '../app/models/User.js'

export const GUARDS = {
  default: 'web',
  web: { model: User },
  password_reset_table: 'password_resets',
  /** Minutes a password-reset link stays valid (fractions allowed); null = never expires. */
  password_reset_expiration: 1440,
}
