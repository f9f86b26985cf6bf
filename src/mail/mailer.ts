/**
 * @module mail/mailer
 * `Mailer.send(mailable)`: runs the mailable's `build()`, renders its view through the app's
 * `ViewFactory` (a plain-text part is derived from the HTML when none is given), checks every
 * header value, and hands the message to the configured driver (`smtp`, `terminal`, `log`).
 * Any failure is thrown as `MailError` (the cause kept) and logged as `mail.failed`.
 */
import type { Application } from '../foundation/application.js'
import { ViewFactory } from '../view/view-factory.js'
import { MailError } from './mail-error.js'
import { assertSingleLine, formatAddress, parseAddress } from './mail-address.js'
import { htmlToText } from './html-to-text.js'
import type { Mailable } from './mailable.js'
import type { MailMessage, MailTransport } from './mail-message.js'
import { resolveMailConfig, type MailConfig } from './mail-config.js'
import { SmtpTransport } from './transports/smtp-transport.js'
import { TerminalTransport } from './transports/terminal-transport.js'
import { LogTransport } from './transports/log-transport.js'

export interface MailerOptions {
  /** Config values that win over `config/mail.ts` and the environment. */
  config?: Partial<MailConfig>
  /** A transport to use instead of the configured driver's (tests, custom drivers). */
  transport?: MailTransport
  /** The view factory; default the container's `view`, else a new one. */
  view?: ViewFactory
}

type MailerApp = Pick<Application, 'config' | 'path' | 'has' | 'make' | 'isDebug'> & {
  log?: Pick<Application['log'], 'error'>
  onShutdown?: Application['onShutdown']
}

export class Mailer {
  readonly config: MailConfig
  readonly transport: MailTransport
  readonly #app: MailerApp
  #view?: ViewFactory
  /** Sends under way: the app's shutdown lets them finish before it closes the transport. */
  readonly #sending = new Set<Promise<MailMessage>>()

  constructor(app: MailerApp, options: MailerOptions = {}) {
    this.#app = app
    this.config = resolveMailConfig(app, options.config)
    this.transport = options.transport ?? createTransport(this.config)
    this.#view = options.view
    app.onShutdown?.(() => this.#close())
  }

  /**
   * Waits for the sends under way, then closes the transport. A mail handed over before a stop (a
   * reset link or a notice sent after its request was answered) still goes out: the server's
   * shutdown deadline bounds the wait, and the transport's own timeouts bound each send.
   */
  async #close(): Promise<void> {
    await Promise.allSettled([...this.#sending])
    await this.transport.close?.()
  }

  get view(): ViewFactory {
    this.#view ??= this.#app.has('view') ? this.#app.make<ViewFactory>('view') : new ViewFactory(this.#app)
    return this.#view
  }

  /** Builds and sends the mailable; returns the message sent. Throws only `MailError`. */
  send(mailable: Mailable): Promise<MailMessage> {
    const sending = this.#send(mailable)
    this.#sending.add(sending)
    const settled = () => this.#sending.delete(sending)
    sending.then(settled, settled)
    return sending
  }

  async #send(mailable: Mailable): Promise<MailMessage> {
    let message: MailMessage
    try {
      message = await this.compose(mailable)
    } catch (error) {
      throw this.#fail(error, 'compose')
    }
    try {
      await this.transport.send(message)
    } catch (error) {
      throw this.#fail(error, 'send')
    }
    return message
  }

  /** The message `send()` would hand to the driver. */
  async compose(mailable: Mailable): Promise<MailMessage> {
    await mailable.build()
    const content = mailable.content()
    if (content.to.length === 0) throw new MailError('The mail has no recipient: call to(address).')
    const subject = assertSingleLine('subject', content.subject ?? '')
    const html = content.view ? this.view.render(content.view.template, content.view.data) : content.html
    const text = content.text ?? (html !== undefined ? htmlToText(html) : undefined)
    if (text === undefined) throw new MailError('The mail has no body: call view(), text() or html().')
    const from = content.from ?? parseAddress('from', { address: this.config.from, name: this.config.from_name })
    // Re-checked here: a subclass may have built addresses some other way.
    for (const a of [from, ...content.to, ...(content.replyTo ? [content.replyTo] : [])]) assertSingleLine('address', formatAddress(a))
    return { from, to: content.to, replyTo: content.replyTo, subject, text, html, date: new Date() }
  }

  #fail(error: unknown, stage: 'compose' | 'send'): MailError {
    const message = error instanceof Error ? error.message : String(error)
    this.#app.log?.error('mail.failed', { driver: this.transport.name, stage, error: message })
    if (error instanceof MailError) return error
    return new MailError(stage === 'send' ? `The e-mail could not be sent (${this.transport.name} driver).` : 'The e-mail could not be built.', { cause: error })
  }
}

export function createTransport(config: MailConfig): MailTransport {
  switch (config.driver) {
    case 'smtp':
      return new SmtpTransport({
        host: config.host,
        port: config.port,
        username: config.username,
        password: config.password,
        secure: config.secure,
        rejectUnauthorized: config.tls_reject_unauthorized,
      })
    case 'log':
      return new LogTransport(config.log_path)
    case 'terminal':
      return new TerminalTransport()
  }
}
