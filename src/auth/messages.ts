/**
 * @module auth/messages
 * Every message the auth pages show, in one place.
 */
export const AUTH_MESSAGES = {
  loginFailed: 'The email or password is incorrect.',
  passwordResetRequired: 'This password no longer works: open the password reset link we e-mailed to you and choose a new one.',
  throttled: (seconds: number) => `Too many attempts. Please try again in ${seconds} seconds.`,
  resetSent: 'If that e-mail address is registered, a password reset link is on its way.',
  resetInvalid: 'This password reset link is invalid or has expired. Please request a new one.',
  passwordChanged: 'Your password has been changed. Please log in with your new password.',
  loggedOut: 'You have been logged out.',
  emailTaken: 'The email has already been taken.',
} as const
