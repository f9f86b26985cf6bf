/**
 * @module auth/account-pages
 * The account pages (the `account` feature): what `trowel/auth` publishes of them. The pieces they
 * stand on (mailed links, devices, verification, the password lock, the security mails) are the
 * core's, in `../accounts/`.
 */
export { SecureAccountForms, SECURE_MESSAGES } from './secure-account-forms.js'
export { AccountForms, ACCOUNT_MESSAGES } from './account-forms.js'
export { DeviceForms, DEVICE_MESSAGES, currentLoginHash } from './device-forms.js'
export { ActivityForms, ACTIVITY_LABELS, activityLabels, describeEvent, recentActivity, type ActivityEntry } from './activity-forms.js'
export { ConfirmPasswordForms, CONFIRM_PASSWORD_INCORRECT } from './confirm-password-forms.js'
export { EmailVerificationForms, VERIFICATION_MESSAGES } from './email-verification-forms.js'
