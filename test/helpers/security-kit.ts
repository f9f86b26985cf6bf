/**
 * Shared tools for the adversarial suites (test/security, test/reliability): the app's own
 * database read with knex, a raw-socket HTTP client (duplicate and oversized headers that fetch
 * cannot send), JWT forging with a known secret, and a finder for secrets leaked into logs.
 */
import { connect } from 'node:net'
import { createHash, createHmac } from 'node:crypto'
import { join } from 'node:path'
import assert from 'node:assert/strict'
import knex, { type Knex } from 'knex'
import { SqliteClient } from '../../src/database/sqlite-client.js'
import type { TestApp } from './app-harness.js'
import { testDriver } from './databases.js'
import { Client } from './http-client.js'

export const PASSWORD = 'correct horse battery staple'

/** A knex instance on the app's database (close it with `destroy()`). */
export function appDb(app: TestApp): Knex {
  const driver = testDriver()
  if (driver === 'sqlite') {
    return knex({ client: SqliteClient, connection: { filename: join(app.dir, 'storage/database.sqlite') }, useNullAsDefault: true, pool: { min: 1, max: 1 } })
  }
  return knex({ client: driver === 'postgres' ? 'pg' : 'mysql2', connection: app.env.DATABASE_URL!, pool: { min: 0, max: 2 } })
}

/** Every row of `users`, ordered by id, as plain JSON (dates as strings). */
export async function snapshotUsers(db: Knex): Promise<string> {
  const rows = await db('users').select('*').orderBy('id')
  return JSON.stringify(rows)
}

export interface RawResponse {
  status: number
  head: string
  body: string
}

/**
 * Writes `request` (a whole HTTP/1.1 message) on a fresh socket and reads until the server
 * closes. Write errors are ignored (a server may answer 431 and close before reading a huge
 * header); `status` is 0 when no status line arrived at all.
 */
export function rawHttp(port: number, request: string | Buffer, timeoutMs = 15_000): Promise<RawResponse> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    const chunks: Buffer[] = []
    let done = false
    const finish = () => {
      if (done) return
      done = true
      clearTimeout(timer)
      socket.destroy()
      const text = Buffer.concat(chunks).toString('latin1')
      const split = text.indexOf('\r\n\r\n')
      const head = split === -1 ? text : text.slice(0, split)
      const match = /^HTTP\/1\.[01] (\d{3})/.exec(head)
      resolve({ status: match ? Number(match[1]) : 0, head, body: split === -1 ? '' : text.slice(split + 4) })
    }
    const timer = setTimeout(finish, timeoutMs)
    socket.on('data', (c) => chunks.push(c))
    socket.on('error', () => finish())
    socket.on('close', () => finish())
    // write, not end: a half-closed socket makes node:http abort a request still in flight.
    socket.on('connect', () => socket.write(request))
  })
}

/** A GET with the given header lines (each `Name: value`), Connection: close. */
export function rawGet(port: number, path: string, headerLines: string[]): Promise<RawResponse> {
  return rawHttp(port, [`GET ${path} HTTP/1.1`, `Host: 127.0.0.1:${port}`, 'Connection: close', ...headerLines, '', ''].join('\r\n'))
}

export const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex')

export const b64 = (v: unknown): string => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url')
export const decodeJwt = (token: string): [any, any] => token.split('.').slice(0, 2).map((p) => JSON.parse(Buffer.from(p, 'base64url').toString())) as [any, any]

/** An HMAC-signed compact JWT from raw header and payload segments. */
export function signSegments(header: string, payload: string, key: string | Buffer, hash = 'sha512'): string {
  const data = `${header}.${payload}`
  return `${data}.${createHmac(hash, key).update(data).digest('base64url')}`
}

export function sign(header: unknown, payload: unknown, key: string | Buffer, hash = 'sha512'): string {
  return signSegments(b64(header), b64(payload), key, hash)
}

/** Anything shaped like a compact JWT. */
export const JWT_SHAPE = /eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/

export async function registerUser(base: string, email: string, name = 'Test User', password = PASSWORD): Promise<Client> {
  const c = new Client(base)
  const r = await c.submit('/register', '/register', { name, email, password, password_confirmation: password })
  assert.equal(r.location, '/home', `registration of ${email} failed`)
  return c
}

export async function getToken(base: string, email: string, password = PASSWORD): Promise<string> {
  const r = await new Client(base).postJson('/api/auth', { username: email, password })
  assert.equal(r.status, 200, r.text)
  return r.json().data
}

/** Fails listing every secret (at least 8 characters) that appears in `text`. */
export function assertNoSecrets(text: string, secrets: Iterable<string>, what = 'the server log'): void {
  const leaked = [...new Set(secrets)].filter((s) => s.length >= 8 && text.includes(s))
  assert.deepEqual(leaked, [], `${what} contains secrets`)
}

/** Every cookie value a client holds: as sent, and for signed cookies (`s.<b64url>.<mac>`) the value inside. */
export function cookieValues(client: Client): string[] {
  return [...client.cookies.values()].flatMap((v) => {
    const packed = decodeURIComponent(v)
    const out = [packed]
    const parts = packed.split('.')
    if (parts[0] === 's' && parts.length === 3) out.push(parts[1]!, Buffer.from(parts[1]!, 'base64url').toString('utf8'), parts[2]!)
    if (parts[0] === 'e' && parts.length === 2) out.push(parts[1]!)
    return out
  })
}
