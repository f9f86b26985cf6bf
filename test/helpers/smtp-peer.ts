/**
 * A real SMTP peer in the test process (smtp-server on 127.0.0.1, port 0) that keeps every
 * message it receives.
 */
import { SMTPServer } from 'smtp-server'
import type { AddressInfo } from 'node:net'

export interface ReceivedMail {
  from: string
  to: string[]
  raw: string
}

export interface SmtpPeer {
  port: number
  messages: ReceivedMail[]
  waitFor(predicate: (m: ReceivedMail) => boolean, timeoutMs?: number): Promise<ReceivedMail>
  /** Resolves once a message `holdAnswer` picked has arrived, its answer held. */
  held(): Promise<void>
  /** Answers the held messages, which then join `messages`. */
  release(): void
  close(): Promise<void>
}

export interface SmtpPeerOptions {
  /** Holds the answer to a message whose raw text this picks, until `release()`: a send under way. */
  holdAnswer?: (raw: string) => boolean
}

export async function startSmtpPeer(options: SmtpPeerOptions = {}): Promise<SmtpPeer> {
  const messages: ReceivedMail[] = []
  const waiters: (() => void)[] = []
  const heldAnswers: (() => void)[] = []
  let arrived = () => {}
  const held = new Promise<void>((resolve) => (arrived = resolve))
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (c: Buffer) => chunks.push(c))
      stream.on('end', () => {
        const mail = {
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        }
        const answer = () => {
          messages.push(mail)
          for (const w of waiters.splice(0)) w()
          callback()
        }
        if (!options.holdAnswer?.(mail.raw)) return answer()
        heldAnswers.push(answer)
        arrived()
      })
    },
  })
  // A client that goes away mid-conversation (the app stopped while a background mail was being
  // sent, at a suite's teardown) is not a failure of the test: what tests check is `messages`.
  server.on('error', () => {})
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.server.address() as AddressInfo).port
  return {
    port,
    messages,
    async waitFor(predicate, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs
      for (;;) {
        const found = messages.find(predicate)
        if (found) return found
        if (Date.now() > deadline) throw new Error(`no matching mail within ${timeoutMs} ms (${messages.length} received)`)
        await new Promise<void>((resolve) => {
          waiters.push(resolve)
          setTimeout(resolve, 200)
        })
      }
    },
    held: () => held,
    release: () => heldAnswers.splice(0).forEach((answer) => answer()),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

/** The decoded text of a raw message (quoted-printable soft breaks and =XX undone). */
export function mailText(raw: string): string {
  return raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)))
}
