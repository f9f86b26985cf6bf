/**
 * @module mail/transports/smtp-transport
 * The `smtp` driver, through nodemailer: STARTTLS whenever the server offers it (and credentials
 * are never sent over a connection whose upgrade failed), implicit TLS on port 465, certificate
 * checks on unless `tls_reject_unauthorized` is false, and bounded timeouts so a dead server fails
 * the send instead of hanging it.
 */
import { createRequire } from 'node:module'
import type { Transporter } from 'nodemailer'
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js'
import type { MailMessage, MailTransport } from '../mail-message.js'

// nodemailer is loaded on the first SMTP send, not at start-up (most processes never send).
const requireModule = createRequire(import.meta.url)

export interface SmtpOptions {
  host: string
  port: number
  username?: string
  password?: string
  /** Implicit TLS (SMTPS); default: port 465. */
  secure?: boolean
  /** Verify the server's certificate; default true. */
  rejectUnauthorized?: boolean
  /** Milliseconds for connecting, the greeting and each reply; default 10000 / 10000 / 30000. */
  timeouts?: { connection?: number; greeting?: number; socket?: number }
}

export class SmtpTransport implements MailTransport {
  readonly name = 'smtp'
  readonly #options: SmtpOptions
  #transporter?: Transporter<SMTPTransport.SentMessageInfo>

  constructor(options: SmtpOptions) {
    this.#options = options
  }

  get transporter(): Transporter<SMTPTransport.SentMessageInfo> {
    const o = this.#options
    const nodemailer = requireModule('nodemailer') as typeof import('nodemailer')
    this.#transporter ??= nodemailer.createTransport({
      host: o.host,
      port: o.port,
      secure: o.secure ?? o.port === 465,
      auth: o.username ? { user: o.username, pass: o.password ?? '' } : undefined,
      requireTLS: false,
      opportunisticTLS: true,
      tls: { rejectUnauthorized: o.rejectUnauthorized ?? true },
      connectionTimeout: o.timeouts?.connection ?? 10_000,
      greetingTimeout: o.timeouts?.greeting ?? 10_000,
      socketTimeout: o.timeouts?.socket ?? 30_000,
    } as SMTPTransport.Options)
    return this.#transporter
  }

  async send(message: MailMessage): Promise<void> {
    await this.transporter.sendMail({
      from: message.from,
      to: message.to,
      replyTo: message.replyTo,
      subject: message.subject,
      text: message.text,
      html: message.html,
      date: message.date,
    })
  }

  close(): void {
    this.#transporter?.close()
  }
}
