import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { tmpdir } from 'node:os'
import { Application } from '../foundation/application.js'
import { Logger } from '../support/logger.js'
import { Mailable } from '../mail/mailable.js'
import { Mailer } from '../mail/mailer.js'
import { fakeMail } from './fake-mail.js'

class Welcome extends Mailable {
  constructor(address: string) {
    super()
    this.to(address)
  }
  override async build(): Promise<void> {
    this.subject('Welcome').text('Hello.\n\nStart here: http://localhost/start?x=1 and again http://localhost/start?x=1\n')
  }
}
class Farewell extends Mailable {}

function newApp(): Application {
  const app = new Application(tmpdir(), { log: new Logger({ sink: () => {} }) })
  app.singleton('mailer', () => new Mailer(app))
  return app
}

describe('fakeMail', () => {
  it('keeps the mails the app sends, with their mailable, and prints nothing', async () => {
    const app = newApp()
    const mail = fakeMail(app)
    const written: string[] = []
    const write = process.stdout.write
    process.stdout.write = ((chunk: string) => written.push(String(chunk)) > 0) as typeof process.stdout.write
    try {
      await app.make<Mailer>('mailer').send(new Welcome('Ada@Example.com'))
    } finally {
      process.stdout.write = write
    }
    assert.deepEqual(written, [])
    assert.equal(mail.sent.length, 1)
    const sent = mail.assertSentTo('ada@example.com', Welcome)
    assert.equal(sent.subject, 'Welcome')
    assert.deepEqual(sent.links(), ['http://localhost/start?x=1'])
    mail.assertSent(Welcome).assertSent(Welcome, 1).assertSent((m) => m.subject === 'Welcome').assertNotSent(Farewell)
    assert.throws(() => mail.assertNothingSent(), /Expected no mail; sent: Welcome to ada@example.com/)
    assert.throws(() => mail.assertSent(Farewell), /Expected a Farewell, found 0/)
    assert.throws(() => mail.assertSentTo('bob@example.com'), /to bob@example.com/)
    assert.equal(fakeMail(app), mail, 'the same fake when asked again')
    mail.clear().assertNothingSent()
  })

  it('waits for a mail sent after the call (mails leaving after the answer)', async () => {
    const app = newApp()
    const mail = fakeMail(app)
    setTimeout(() => void app.make<Mailer>('mailer').send(new Welcome('grace@example.com')), 20)
    const sent = await mail.waitFor('grace@example.com')
    assert.equal(sent.subject, 'Welcome')
    await assert.rejects(mail.waitFor(Farewell, { timeout: 50 }), /Expected a Farewell within 50 ms; sent: Welcome to grace@example.com/)
    await assert.rejects(mail.waitFor('grace@example.com', { timeout: 30, since: 1 }), /within 30 ms/)
  })

  it('puts the app\'s mailer back on restore', async () => {
    const app = newApp()
    const original = app.make<Mailer>('mailer')
    const mail = fakeMail(app)
    assert.notEqual(app.make<Mailer>('mailer'), original)
    mail.restore()
    assert.equal(app.make<Mailer>('mailer'), original)
    assert.notEqual(fakeMail(app), mail, 'a new fake after a restore')
  })
})
