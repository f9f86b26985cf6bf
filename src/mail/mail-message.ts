/**
 * @module mail/mail-message
 * A message ready for a transport, and its human-readable form (the `terminal` and `log`
 * drivers print it).
 */
import { formatAddress, type MailAddress } from './mail-address.js'

export interface MailMessage {
  from: MailAddress
  to: MailAddress[]
  replyTo?: MailAddress
  subject: string
  text: string
  html?: string
  date: Date
}

/** What a driver does with a message. */
export interface MailTransport {
  readonly name: string
  send(message: MailMessage): Promise<void>
  close?(): void | Promise<void>
}

/** Headers, a blank line and the text part; with `includeHtml`, the HTML part after it. */
export function formatMailMessage(message: MailMessage, options: { includeHtml?: boolean } = {}): string {
  const lines = [
    `From: ${formatAddress(message.from)}`,
    `To: ${message.to.map(formatAddress).join(', ')}`,
    ...(message.replyTo ? [`Reply-To: ${formatAddress(message.replyTo)}`] : []),
    `Subject: ${message.subject}`,
    `Date: ${message.date.toUTCString()}`,
    '',
    message.text,
  ]
  if (options.includeHtml && message.html) lines.push('', '--- HTML ---', message.html)
  return lines.join('\n')
}
