/**
 * @module testing/fake-mail
 * `fakeMail(app)`: the app's mails are kept in memory instead of being sent or printed (Laravel's
 * `Mail::fake()`), with assertions. `TestClient` turns it on for every app it boots
 * (`client.mail`); call it yourself for an app you booted another way.
 *
 * ```ts
 * await browser.post('/register', { ... })
 * const mail = await client.mail.waitFor('grace@example.com')   // auth mails leave after the answer
 * assert.match(mail.subject, /Verify/)
 * await browser.get(new URL(mail.links()[0]!).pathname)
 * client.mail.assertSent(VerifyEmail).assertNotSent(ResetPassword)
 * ```
 */
import assert from 'node:assert/strict'
import type { Application } from '../foundation/application.js'
import { Mailer } from '../mail/mailer.js'
import { Mailable } from '../mail/mailable.js'
import type { MailMessage, MailTransport } from '../mail/mail-message.js'

/** One mail the app sent: the mailable it built and the message it rendered. */
export class SentMail {
  constructor(
    readonly mailable: Mailable,
    readonly message: MailMessage,
  ) {}

  /** The recipients' addresses, lower-cased. */
  get to(): string[] {
    return this.message.to.map((a) => a.address.toLowerCase())
  }

  get subject(): string {
    return this.message.subject
  }

  get text(): string {
    return this.message.text
  }

  get html(): string | undefined {
    return this.message.html
  }

  /** Every http(s) link of the plain-text part, in order, without duplicates. */
  links(): string[] {
    return [...new Set(this.message.text.match(/https?:\/\/[^\s<>()"']+/g) ?? [])]
  }
}

/** What a mail is matched by: a mailable class, a recipient address, or a predicate. */
export type MailMatcher = (abstract new (...args: any[]) => Mailable) | string | ((mail: SentMail) => boolean)

type MailableClass = abstract new (...args: any[]) => Mailable

function isMailableClass(matcher: unknown): matcher is MailableClass {
  return typeof matcher === 'function' && (matcher === Mailable || matcher.prototype instanceof Mailable)
}

function matches(mail: SentMail, matcher: MailMatcher | undefined): boolean {
  if (matcher === undefined) return true
  if (typeof matcher === 'string') return mail.to.includes(matcher.trim().toLowerCase())
  if (isMailableClass(matcher)) return mail.mailable instanceof matcher
  return (matcher as (mail: SentMail) => boolean)(mail) === true
}

function describe(matcher: MailMatcher | undefined): string {
  if (matcher === undefined) return 'a mail'
  if (typeof matcher === 'string') return `a mail to ${matcher}`
  return isMailableClass(matcher) ? `a ${matcher.name}` : 'a matching mail'
}

const memoryTransport: MailTransport = { name: 'memory', send: async () => {} }

class RecordingMailer extends Mailer {
  readonly #fake: FakeMail
  constructor(app: Application, fake: FakeMail) {
    super(app, { transport: memoryTransport })
    this.#fake = fake
  }

  override async send(mailable: Mailable): Promise<MailMessage> {
    const message = await super.send(mailable)
    this.#fake.record(new SentMail(mailable, message))
    return message
  }
}

export class FakeMail {
  /** Every mail sent since the fake was made (or `clear()`ed), oldest first. */
  readonly sent: SentMail[] = []
  readonly #waiting = new Set<() => void>()
  readonly #restore: () => void

  constructor(app: Application) {
    const previous = app.has('mailer') ? app.make<Mailer>('mailer') : undefined
    app.bind('mailer', new RecordingMailer(app, this))
    app.bind('mailer.fake', this)
    this.#restore = () => {
      if (previous) app.bind('mailer', previous)
      app.bind('mailer.fake', undefined)
    }
  }

  /** Called by the mailer: keeps `mail` and wakes `waitFor`. */
  record(mail: SentMail): void {
    this.sent.push(mail)
    for (const wake of [...this.#waiting]) wake()
  }

  /** The mails that match (every mail without a matcher). */
  all(matcher?: MailMatcher): SentMail[] {
    return this.sent.filter((m) => matches(m, matcher))
  }

  /** The latest mail that matches, or null. */
  latest(matcher?: MailMatcher): SentMail | null {
    return this.all(matcher).at(-1) ?? null
  }

  /**
   * The first matching mail sent after `since` mails (default: any already kept), waiting for it:
   * the framework's own mails (verification, reset, notices) leave after the answer.
   */
  waitFor(matcher?: MailMatcher, options: { timeout?: number; since?: number } = {}): Promise<SentMail> {
    const since = options.since ?? 0
    const find = (): SentMail | undefined => this.sent.slice(since).find((m) => matches(m, matcher))
    const found = find()
    if (found) return Promise.resolve(found)
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(check)
        reject(new assert.AssertionError({ message: `Expected ${describe(matcher)} within ${options.timeout ?? 2000} ms; sent: ${this.#summary()}` }))
      }, options.timeout ?? 2000)
      const check = (): void => {
        const mail = find()
        if (!mail) return
        clearTimeout(timer)
        this.#waiting.delete(check)
        resolve(mail)
      }
      this.#waiting.add(check)
    })
  }

  /** At least one matching mail was sent (exactly `count` when given). */
  assertSent(matcher?: MailMatcher, count?: number): this {
    const found = this.all(matcher).length
    if (count === undefined ? found === 0 : found !== count) {
      throw new assert.AssertionError({ message: `Expected ${count === undefined ? '' : `${count} × `}${describe(matcher)}, found ${found}; sent: ${this.#summary()}` })
    }
    return this
  }

  /** A mail to `address` (matching `matcher` too, when given) was sent; returns the latest. */
  assertSentTo(address: string, matcher?: MailMatcher): SentMail {
    const mail = this.all(address).filter((m) => matches(m, matcher)).at(-1)
    if (!mail) throw new assert.AssertionError({ message: `Expected ${describe(matcher)} to ${address}; sent: ${this.#summary()}` })
    return mail
  }

  /** No matching mail was sent. */
  assertNotSent(matcher: MailMatcher): this {
    const found = this.all(matcher).length
    if (found > 0) throw new assert.AssertionError({ message: `Expected no ${describe(matcher)}, found ${found}` })
    return this
  }

  assertNothingSent(): this {
    if (this.sent.length > 0) throw new assert.AssertionError({ message: `Expected no mail; sent: ${this.#summary()}` })
    return this
  }

  /** Forgets the mails kept so far. */
  clear(): this {
    this.sent.length = 0
    return this
  }

  /** Puts the app's own mailer back. */
  restore(): void {
    this.#restore()
  }

  #summary(): string {
    if (this.sent.length === 0) return 'none'
    return this.sent.map((m) => `${m.mailable.constructor.name} to ${m.to.join(', ')} ("${m.subject}")`).join('; ')
  }
}

/** Keeps `app`'s mails in memory from now on (the same fake when called again). */
export function fakeMail(app: Application): FakeMail {
  const existing = app.get<FakeMail | undefined>('mailer.fake')
  return existing ?? new FakeMail(app)
}
