/**
 * @module auth/email-login
 * Sign-in by e-mail (feature `email_login`): what `trowel/auth` exports of it.
 */
export { EmailLoginForms, EMAIL_LOGIN_MESSAGES } from './forms.js'
