/**
 * @module mail/transports/terminal-transport
 * The `terminal` driver (the default): prints each message (headers and text) to stdout.
 */
import { formatMailMessage, type MailMessage, type MailTransport } from '../mail-message.js'

export class TerminalTransport implements MailTransport {
  readonly name = 'terminal'
  readonly #out: NodeJS.WritableStream

  constructor(out: NodeJS.WritableStream = process.stdout) {
    this.#out = out
  }

  async send(message: MailMessage): Promise<void> {
    const rule = '='.repeat(72)
    this.#out.write(`${rule}\nMail (terminal driver)\n${rule}\n${formatMailMessage(message)}\n${rule}\n`)
  }
}
