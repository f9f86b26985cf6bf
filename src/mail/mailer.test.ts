import { describe, it, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import type { AddressInfo } from 'node:net'
import { SMTPServer, type SMTPServerOptions, type SMTPServerSession } from 'smtp-server'
import { Container } from '../container/container.js'
import { ViewFactory } from '../view/view-factory.js'
import {
  Mailable,
  Mailer,
  MailError,
  MailHeaderInjectionError,
  TerminalTransport,
  htmlToText,
  resolveMailConfig,
  type MailConfig,
} from './index.js'

class FakeApp extends Container {
  isDebug = false
  logged: { event: string; fields?: Record<string, unknown> }[] = []
  log = {
    info: () => {},
    warn: () => {},
    error: (event: string, fields?: Record<string, unknown>) => this.logged.push({ event, fields }),
  }
  #config: Record<string, unknown> = {}
  constructor(readonly basePath: string, mail?: Record<string, unknown>) {
    super()
    if (mail) this.#config.mail = { MAIL: mail }
  }
  path(...s: string[]): string {
    return join(this.basePath, ...s)
  }
  config<T = any>(name: string): T | undefined {
    return this.#config[name] as T | undefined
  }
  onShutdown(_fn: () => unknown): void {}
}

class ResetPassword extends Mailable {
  constructor(private readonly url: string) {
    super()
  }
  override async build(): Promise<void> {
    this.subject('Reset your password').view('mailables/auth/reset_password', { url: this.url })
  }
}

interface Received {
  from: string
  to: string[]
  raw: string
  secure: boolean
  user?: string
}

async function startSmtp(options: SMTPServerOptions): Promise<{ port: number; received: Received[]; close: () => Promise<void> }> {
  const received: Received[] = []
  const server = new SMTPServer({
    logger: false,
    ...options,
    onData(stream, session: SMTPServerSession, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (c: Buffer) => chunks.push(c))
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
          secure: session.secure,
          user: session.user as string | undefined,
        })
        callback()
      })
    },
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.server.address() as AddressInfo).port
  return { port, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) }
}

let dir: string
let view: ViewFactory

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'trowel-mail-'))
  mkdirSync(join(dir, 'templates', 'mailables', 'auth'), { recursive: true })
  writeFileSync(
    join(dir, 'templates', 'mailables', 'auth', 'reset_password.html'),
    '<html><head><style>p{color:red}</style></head><body><h1>Password reset</h1><p>Hello &amp; welcome.</p><p><a href="{{ url }}">Reset password</a></p></body></html>',
  )
  view = new ViewFactory(new FakeApp(dir))
})
after(() => rmSync(dir, { recursive: true, force: true }))

const URL_ = 'http://127.0.0.1:8000/change_password/abc_DEF-123?x=1&y=2'

describe('Mailer with the smtp driver', () => {
  it('sends over STARTTLS with AUTH to a real SMTP server (recipient, subject and body arrive)', async () => {
    const smtp = await startSmtp({
      onAuth(auth, _session, callback) {
        if (auth.username === 'mailer' && auth.password === 's3cret') return callback(null, { user: 'mailer' })
        callback(new Error('bad credentials'))
      },
    })
    try {
      const app = new FakeApp(dir, {
        driver: 'smtp', host: '127.0.0.1', port: smtp.port, username: 'mailer', password: 's3cret',
        from: 'app@example.com', from_name: 'Trowel App', tls_reject_unauthorized: false,
      })
      const mailer = new Mailer(app, { view })
      await mailer.send(new ResetPassword(URL_).to('Jane Doe <jane@example.com>'))
      mailer.transport.close?.()
      assert.equal(smtp.received.length, 1)
      const mail = smtp.received[0]!
      assert.deepEqual(mail.to, ['jane@example.com'])
      assert.equal(mail.from, 'app@example.com')
      assert.equal(mail.secure, true, 'upgraded with STARTTLS')
      assert.equal(mail.user, 'mailer')
      assert.match(mail.raw, /^Subject: Reset your password\r?$/m)
      assert.match(mail.raw, /^To: Jane Doe <jane@example\.com>\r?$/m)
      assert.match(mail.raw, /^From: Trowel App <app@example\.com>\r?$/m)
      assert.match(mail.raw, /multipart\/alternative/)
      assert.ok(mail.raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=').includes('/change_password/abc_DEF-123'), mail.raw)
    } finally {
      await smtp.close()
    }
  })

  it('sends in plain text when the server offers no STARTTLS', async () => {
    const smtp = await startSmtp({ disabledCommands: ['STARTTLS', 'AUTH'] })
    try {
      const mailer = new Mailer(new FakeApp(dir, { driver: 'smtp', host: '127.0.0.1', port: smtp.port }), { view })
      await mailer.send(new Mailable().to('a@example.com').subject('Plain').text('Just text.'))
      mailer.transport.close?.()
      assert.equal(smtp.received[0]!.secure, false)
      assert.match(smtp.received[0]!.raw, /Just text\./)
    } finally {
      await smtp.close()
    }
  })

  it('throws MailError (and logs mail.failed) when the certificate is untrusted', async () => {
    const smtp = await startSmtp({ authOptional: true })
    try {
      const app = new FakeApp(dir, { driver: 'smtp', host: '127.0.0.1', port: smtp.port })
      const mailer = new Mailer(app, { view })
      await assert.rejects(mailer.send(new Mailable().to('a@example.com').subject('x').text('y')), (e: unknown) => e instanceof MailError && e.code === 'E_MAIL' && e.cause !== undefined)
      mailer.transport.close?.()
      assert.equal(smtp.received.length, 0)
      assert.equal(app.logged[0]?.event, 'mail.failed')
    } finally {
      await smtp.close()
    }
  })

  it('throws MailError when nothing listens', async () => {
    const mailer = new Mailer(new FakeApp(dir, { driver: 'smtp', host: '127.0.0.1', port: 1 }), { view })
    await assert.rejects(mailer.send(new Mailable().to('a@example.com').subject('x').text('y')), MailError)
  })
})

describe('Mailer with the log driver', () => {
  it('appends headers, text and HTML to storage/logs/mail.log, creating the folders', async () => {
    const base = mkdtempSync(join(tmpdir(), 'trowel-maillog-'))
    try {
      mkdirSync(join(base, 'templates'))
      const app = new FakeApp(base, { driver: 'log', from: 'app@example.com' })
      const mailer = new Mailer(app, { view })
      await mailer.send(new ResetPassword(URL_).to('jane@example.com'))
      await mailer.send(new Mailable().to('bob@example.com').subject('Second').text('Second body'))
      const file = join(base, 'storage', 'logs', 'mail.log')
      const log = readFileSync(file, 'utf8')
      assert.match(log, /^From: app@example\.com$/m)
      assert.match(log, /^To: jane@example\.com$/m)
      assert.match(log, /^Subject: Reset your password$/m)
      assert.ok(log.includes(`Reset password (${URL_})`), log)
      assert.ok(log.includes(`<a href="${URL_.replace(/&/g, '&amp;')}">`), 'HTML part kept')
      assert.match(log, /^Subject: Second$/m)
      assert.ok(log.indexOf('Reset your password') < log.indexOf('Second body'), 'appended in order')
      assert.equal(statSync(file).mode & 0o077, 0, 'readable by its owner only')
    } finally {
      rmSync(base, { recursive: true, force: true })
    }
  })
})

describe('Mailer with the terminal driver', () => {
  it('is the default and prints headers and text', async () => {
    let out = ''
    const stream = new Writable({ write(chunk, _enc, cb) { out += String(chunk); cb() } })
    const saved = process.env.MAIL_DRIVER
    delete process.env.MAIL_DRIVER
    try {
      const app = new FakeApp(dir)
      assert.equal(resolveMailConfig(app).driver, 'terminal')
      const mailer = new Mailer(app, { view, transport: new TerminalTransport(stream) })
      await mailer.send(new ResetPassword(URL_).to('jane@example.com').from('support@example.com'))
    } finally {
      if (saved !== undefined) process.env.MAIL_DRIVER = saved
    }
    assert.match(out, /^From: support@example\.com$/m)
    assert.match(out, /^Subject: Reset your password$/m)
    assert.ok(out.includes(URL_))
    assert.ok(!out.includes('<a href'))
  })
})

describe('Mailer at shutdown', () => {
  /** A transport whose sends wait for `deliver()`, noting what happens in `events`. */
  function heldTransport(events: string[], fail = false) {
    const waiting: (() => void)[] = []
    return {
      deliverAll: () => waiting.splice(0).forEach((deliver) => deliver()),
      transport: {
        name: 'held',
        send: () =>
          new Promise<void>((resolve, reject) => {
            waiting.push(() => {
              events.push(fail ? 'failed' : 'sent')
              if (fail) reject(new Error('the server hung up'))
              else resolve()
            })
          }),
        close: () => void events.push('closed'),
      },
    }
  }

  function appWithHooks(): { app: FakeApp; shutdown: () => Promise<void> } {
    const hooks: (() => unknown)[] = []
    const app = new FakeApp(dir)
    app.onShutdown = (fn: () => unknown) => void hooks.push(fn)
    return { app, shutdown: async () => void (await Promise.all(hooks.map((hook) => hook()))) }
  }

  const mail = (subject: string) => new Mailable().to('a@example.com').subject(subject).text('Body.')
  const turn = () => new Promise((resolve) => setImmediate(resolve))

  it('lets the sends under way finish before it closes the transport', async () => {
    const events: string[] = []
    const { app, shutdown } = appWithHooks()
    const held = heldTransport(events)
    const mailer = new Mailer(app, { view, transport: held.transport })
    const sending = [mailer.send(mail('One')), mailer.send(mail('Two'))]
    await turn()
    const stopped = shutdown()
    await turn()
    assert.deepEqual(events, [], 'the transport stays open while mails are on their way')
    held.deliverAll()
    await stopped
    await Promise.all(sending)
    assert.deepEqual(events, ['sent', 'sent', 'closed'])
  })

  it('closes at once with nothing under way, and after a send that failed', async () => {
    const events: string[] = []
    const idle = appWithHooks()
    new Mailer(idle.app, { view, transport: heldTransport(events).transport })
    await idle.shutdown()
    assert.deepEqual(events, ['closed'])

    events.length = 0
    const { app, shutdown } = appWithHooks()
    const held = heldTransport(events, true)
    const mailer = new Mailer(app, { view, transport: held.transport })
    const failing = assert.rejects(mailer.send(mail('Lost')), MailError)
    await turn()
    const stopped = shutdown()
    held.deliverAll()
    await stopped
    await failing
    assert.deepEqual(events, ['failed', 'closed'])
  })
})

describe('header injection', () => {
  it('refuses CR or LF in addresses, names and the subject', () => {
    const cases: [string, (m: Mailable) => unknown][] = [
      ['to', (m) => m.to('a@example.com\r\nBcc: victim@example.com')],
      ['to', (m) => m.to({ name: 'Eve\nBcc: x@y.z', address: 'a@example.com' })],
      ['to', (m) => m.to(['ok@example.com', 'b@example.com\nX: y'])],
      ['from', (m) => m.from('a@example.com\rX: y')],
      ['replyTo', (m) => m.replyTo('a@example.com\n')],
      ['subject', (m) => m.subject('Hello\r\nBcc: victim@example.com')],
      ['subject', (m) => m.subject('Hello\u2028there')],
    ]
    for (const [field, set] of cases) {
      assert.throws(() => set(new Mailable()), (e: unknown) => e instanceof MailHeaderInjectionError && e instanceof MailError && e.field === field && e.code === 'E_MAIL_HEADER_INJECTION')
    }
  })

  it('refuses injection from build() and from config, at send time, as MailError', async () => {
    class Evil extends Mailable {
      override async build() {
        this.subject('x\nBcc: a@b.c').text('t')
      }
    }
    const sent: unknown[] = []
    const transport = { name: 'fake', send: async (m: unknown) => void sent.push(m) }
    const mailer = new Mailer(new FakeApp(dir), { view, transport })
    await assert.rejects(mailer.send(new Evil().to('a@example.com')), MailHeaderInjectionError)
    const badFrom = new Mailer(new FakeApp(dir, { from: 'a@example.com\r\nBcc: b@example.com' }), { view, transport })
    await assert.rejects(badFrom.send(new Mailable().to('a@example.com').subject('s').text('t')), MailError)
    assert.equal(sent.length, 0)
  })

  it('refuses implausible addresses', () => {
    for (const bad of ['not-an-address', 'a@b@c', 'a <b>', '']) assert.throws(() => new Mailable().to(bad), MailError, bad)
  })
})

describe('Mailer composition', () => {
  it('needs a recipient and a body', async () => {
    const mailer = new Mailer(new FakeApp(dir), { view, transport: { name: 'fake', send: async () => {} } })
    await assert.rejects(mailer.send(new Mailable().subject('s').text('t')), /no recipient/)
    await assert.rejects(mailer.send(new Mailable().to('a@example.com').subject('s')), /no body/)
  })

  it('wraps template failures in MailError', async () => {
    const mailer = new Mailer(new FakeApp(dir), { view, transport: { name: 'fake', send: async () => {} } })
    await assert.rejects(mailer.send(new Mailable().to('a@example.com').subject('s').view('mailables/missing')), MailError)
  })

  it('config/mail.ts wins over the environment, which wins over defaults', () => {
    const saved = { ...process.env }
    try {
      process.env.MAIL_DRIVER = 'log'
      process.env.MAIL_PORT = '2525'
      process.env.MAIL_FROM_ADDRESS = 'env@example.com'
      const fromEnv: MailConfig = resolveMailConfig(new FakeApp(dir))
      assert.equal(fromEnv.driver, 'log')
      assert.equal(fromEnv.port, 2525)
      assert.equal(fromEnv.from, 'env@example.com')
      assert.equal(fromEnv.tls_reject_unauthorized, true)
      const fromConfig = resolveMailConfig(new FakeApp(dir, { driver: 'smtp', port: 465 }))
      assert.equal(fromConfig.driver, 'smtp')
      assert.equal(fromConfig.port, 465)
      assert.throws(() => resolveMailConfig(new FakeApp(dir, { driver: 'pigeon' })), /config\/mail\.ts: MAIL\.driver/)
    } finally {
      process.env = saved
    }
  })
})

describe('htmlToText', () => {
  it('keeps link targets, breaks blocks and decodes entities', () => {
    const text = htmlToText('<style>x{}</style><h1>Hi</h1><p>A &amp; B&nbsp;C</p><p><a href="https://x.test/a?b=1&amp;c=2">Go</a> or <a href="https://y.test">https://y.test</a></p><ul><li>one</li><li>two</li></ul>')
    assert.equal(text, 'Hi\n\nA & B C\n\nGo (https://x.test/a?b=1&c=2) or https://y.test\n\n- one\n- two')
  })

  it('keeps a space between a table row\'s label and value, and leaves out data-text="skip"', () => {
    const text = htmlToText('<table><tr><td>When</td><td>2026-11-26 20:28 UTC</td></tr><tr><td>IP address</td><td>127.0.0.1</td></tr></table><p><a href="https://a.test/s/1">This wasn\'t me</a></p><p><span data-text="skip">https://a.test/s/1<br></span>Works once.</p>')
    assert.match(text, /^When\s+2026-11-26 20:28 UTC$/m)
    assert.match(text, /^IP address\s+127\.0\.0\.1$/m)
    assert.equal(text.split('https://a.test/s/1').length - 1, 1, text)
    assert.match(text, /Works once\./)
  })
})
