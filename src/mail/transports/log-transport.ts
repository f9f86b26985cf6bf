/**
 * @module mail/transports/log-transport
 * The `log` driver: appends each message (headers, text and HTML) to `storage/logs/mail.log`,
 * creating the folders. The file is created readable by its owner only, since mails carry
 * password-reset links.
 */
import { appendFile, mkdir } from 'node:fs/promises'
import { dirname } from 'node:path'
import { formatMailMessage, type MailMessage, type MailTransport } from '../mail-message.js'

export class LogTransport implements MailTransport {
  readonly name = 'log'
  readonly path: string

  constructor(path: string) {
    this.path = path
  }

  async send(message: MailMessage): Promise<void> {
    await mkdir(dirname(this.path), { recursive: true })
    const entry = `----- ${message.date.toISOString()} -----\n${formatMailMessage(message, { includeHtml: true })}\n\n`
    await appendFile(this.path, entry, { encoding: 'utf8', mode: 0o600 })
  }
}
