/**
 * Helpers of the sign-in by e-mail suites: the sign-in mails a real SMTP peer received (link
 * token, code, subject), asking for one, answering a code, confirming a link, and users.
 */
import assert from 'node:assert/strict'
import type { Knex } from 'knex'
import { Client, type HttpResult } from './http-client.js'
import { mailText, type SmtpPeer } from './smtp-peer.js'
import { PASSWORD } from './security-kit.js'

export const APP_URL = 'http://app.example.test'
const LINK = /http:\/\/app\.example\.test\/login\/email\/([A-Za-z0-9_-]{43})\b/
export const SUBJECT = /^Subject: (.+) sign-in code: (\d{6})\r?$/m
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

export interface SignInMail {
  token: string
  code: string
  subject: string
  text: string
}

/** What the helpers need, read when called (the suite's `before` fills it). */
export interface KitTarget {
  smtp: SmtpPeer
  url: string
  db: Knex
  /** POST /login/email requests made so far (the per-IP budget's count). */
  requests: number
}

export function signInKit(t: KitTarget) {
  function mailsTo(address: string): SignInMail[] {
    return t.smtp.messages
      .filter((m) => m.to.includes(address) && SUBJECT.test(m.raw))
      .map((m) => {
        const text = mailText(m.raw)
        const subject = SUBJECT.exec(m.raw)
        return { token: LINK.exec(text)?.[1] ?? '', code: subject?.[2] ?? '', subject: subject?.[0] ?? '', text }
      })
  }

  /** The `count`-th sign-in mail to `address` (1-based), once it arrived. */
  async function mail(address: string, count = 1): Promise<SignInMail> {
    const deadline = Date.now() + 10_000
    for (;;) {
      const found = mailsTo(address)
      if (found.length >= count) return found[count - 1]!
      if (Date.now() > deadline) throw new Error(`no sign-in mail #${count} to ${address}`)
      await sleep(50)
    }
  }

  async function ask(address: string, client = new Client(t.url)): Promise<HttpResult> {
    t.requests++
    return client.submit('/login/email', '/login/email', { email: address })
  }

  /** Asks for a mail (after the resend interval) and returns it. */
  async function newMail(address: string): Promise<SignInMail> {
    const before = mailsTo(address).length
    await sleep(250)
    const r = await ask(address)
    assert.equal(r.location, '/login/email/sent')
    return mail(address, before + 1)
  }

  async function answer(client: Client, email: string, code: string): Promise<HttpResult> {
    await client.get('/login/email/sent')
    return client.post('/login/email/code', { __token: client.csrf(), email, code })
  }

  async function confirmLink(client: Client, token: string): Promise<HttpResult> {
    const page = await client.get(`/login/email/${token}`)
    assert.equal(page.status, 200)
    return client.post(`/login/email/${token}`, { __token: client.csrf() })
  }

  /** Registers `email` (password PASSWORD), its address marked verified unless `verified` is false. */
  async function createUser(email: string, verified = true): Promise<number> {
    const c = new Client(t.url)
    const r = await c.submit('/register', '/register', { name: 'Mail User', email, password: PASSWORD, password_confirmation: PASSWORD })
    assert.equal(r.location, '/home')
    const row = await t.db('users').where('email', email).first('id')
    if (verified) await t.db('users').where('id', row.id).update({ email_verified_at: new Date() })
    return Number(row.id)
  }

  /** /home's page when `client` is logged in, else null. */
  async function loggedInAs(client: Client): Promise<string | null> {
    const r = await client.get('/home')
    return r.status === 200 ? r.text : null
  }

  return { mailsTo, mail, ask, newMail, answer, confirmLink, createUser, loggedInAs }
}
