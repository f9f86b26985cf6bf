/**
 * @module mail/mailable
 * `Mailable`: one kind of e-mail. Set its parts fluently, or override `build()` (run by
 * `Mailer.send()` just before sending) in a subclass:
 *
 * @example
 * export class ResetPassword extends Mailable {
 *   constructor(private readonly url: string) { super() }
 *   override async build() {
 *     this.subject('Reset your password').view('mailables/auth/reset_password', { url: this.url })
 *   }
 * }
 * await mailer.send(new ResetPassword(url).to(user.email))
 *
 * Addresses and the subject are checked as they are set: a line break throws
 * `MailHeaderInjectionError`.
 */
import { assertSingleLine, parseAddress, type AddressInput, type MailAddress } from './mail-address.js'

/** Everything a mailable was given, as the mailer reads it. */
export interface MailableContent {
  to: MailAddress[]
  from?: MailAddress
  replyTo?: MailAddress
  subject?: string
  view?: { template: string; data: Record<string, unknown> }
  text?: string
  html?: string
}

export class Mailable {
  #to: MailAddress[] = []
  #from?: MailAddress
  #replyTo?: MailAddress
  #subject?: string
  #view?: { template: string; data: Record<string, unknown> }
  #text?: string
  #html?: string

  /** Adds recipients. */
  to(address: AddressInput | AddressInput[]): this {
    for (const a of Array.isArray(address) ? address : [address]) this.#to.push(parseAddress('to', a))
    return this
  }

  /** The sender; default `MAIL_FROM_ADDRESS`. */
  from(address: AddressInput): this {
    this.#from = parseAddress('from', address)
    return this
  }

  replyTo(address: AddressInput): this {
    this.#replyTo = parseAddress('replyTo', address)
    return this
  }

  subject(text: string): this {
    this.#subject = assertSingleLine('subject', String(text))
    return this
  }

  /** The HTML body: a template (`mailables/auth/reset_password`) rendered with `data`. */
  view(template: string, data: Record<string, unknown> = {}): this {
    this.#view = { template, data }
    return this
  }

  /** The plain-text body; derived from the HTML when not given. */
  text(plain: string): this {
    this.#text = String(plain)
    return this
  }

  /** A literal HTML body (instead of `view()`). */
  html(markup: string): this {
    this.#html = String(markup)
    return this
  }

  /** Override to set the subject, view and so on; runs once per `send()`, before sending. */
  async build(): Promise<void> {}

  /** A snapshot of what was set. */
  content(): MailableContent {
    return {
      to: [...this.#to],
      from: this.#from,
      replyTo: this.#replyTo,
      subject: this.#subject,
      view: this.#view,
      text: this.#text,
      html: this.#html,
    }
  }
}
