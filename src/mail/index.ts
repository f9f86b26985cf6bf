/**
 * @module mail
 * E-mail: `Mailable`, `Mailer` and the `smtp`, `terminal` and `log` drivers.
 */
export { Mailable, type MailableContent } from './mailable.js'
export { Mailer, createTransport, type MailerOptions } from './mailer.js'
export { MailProvider } from './mail-provider.js'
export { MailError, MailHeaderInjectionError } from './mail-error.js'
export { parseAddress, formatAddress, assertSingleLine, type AddressInput, type MailAddress } from './mail-address.js'
export { formatMailMessage, type MailMessage, type MailTransport } from './mail-message.js'
export { resolveMailConfig, MAIL_DRIVERS, type MailConfig, type MailDriver } from './mail-config.js'
export { htmlToText, decodeEntities } from './html-to-text.js'
export { SmtpTransport, type SmtpOptions } from './transports/smtp-transport.js'
export { TerminalTransport } from './transports/terminal-transport.js'
export { LogTransport } from './transports/log-transport.js'
