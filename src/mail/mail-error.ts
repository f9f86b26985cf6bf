/**
 * @module mail/mail-error
 * `MailError` (500 `E_MAIL`): a message could not be built or sent. `Mailer.send()` throws only
 * this, so a caller can log it and carry on (e.g. a password reset still answers the same way).
 * `MailHeaderInjectionError` (`E_MAIL_HEADER_INJECTION`): an address, name or subject contained
 * CR or LF, the way to smuggle extra headers (`Bcc:`) into a message.
 */
import { HttpError, type HttpErrorOptions } from '../http/http-error.js'

export class MailError extends HttpError {
  constructor(message = 'The e-mail could not be sent.', options?: HttpErrorOptions, code = 'E_MAIL') {
    super(500, code, message, options)
  }
}

export class MailHeaderInjectionError extends MailError {
  /** Which part was refused: `to`, `from`, `replyTo` or `subject`. */
  readonly field: string
  constructor(field: string) {
    super(`Refused a mail ${field} containing a line break (header injection).`, undefined, 'E_MAIL_HEADER_INJECTION')
    this.field = field
  }
}
