/**
 * @module auth/social
 * Sign in with GitHub, Google or any OpenID Connect provider (feature `social`).
 */
export { SocialForms, SOCIAL_MESSAGES } from './forms.js'
export { SocialEmailForms } from './email.js'
export { ConnectionForms, CONNECTION_MESSAGES } from './connections.js'
export { Social, OAUTH_COOKIE } from './social.js'
export { resolveSocialConfig, type SocialConfig, type SocialProvider } from './config.js'
export { SocialLinkRequiredError } from './errors.js'
