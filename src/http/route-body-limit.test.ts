/**
 * A route's own body limit (`RouteDefinition.bodyLimit`), through the real RequestHandler with
 * `inject`: over it 413 `E_PAYLOAD_TOO_LARGE` before the handler runs; at it, and on routes
 * without one, the body is read as usual.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Readable } from 'node:stream'
import type { IncomingMessage } from 'node:http'
import { Route } from '../routing/route.js'
import { inject } from '../testing/inject.js'
import { bareApp } from '../testing/bare-app.js'
import { RequestHandler } from './request-handler.js'
import { CREDENTIAL_BODY_LIMIT, readBody } from './body-parser.js'

async function build() {
  let handled = 0
  const echo = ({ request }: { request: { body: unknown } }) => {
    handled++
    return { body: request.body }
  }
  const app = await bareApp([Route.post('/small', echo).bodyLimit(64), Route.post('/big', echo), Route.post('/huge', echo).bodyLimit(8 * 1024 * 1024)])
  const handler = new RequestHandler(app)
  const post = (url: string, body: string) =>
    inject(handler.listener, { method: 'POST', url, body, headers: { 'content-type': 'application/json', accept: 'application/json' } })
  return { post, handled: () => handled }
}

/** A JSON body of exactly `bytes` bytes. */
const jsonOf = (bytes: number) => JSON.stringify({ a: 'x'.repeat(bytes - 8) })

describe('RouteDefinition.bodyLimit', () => {
  it('refuses a body over the route limit with 413 E_PAYLOAD_TOO_LARGE, before the handler', async () => {
    const { post, handled } = await build()
    const over = await post('/small', jsonOf(65))
    assert.equal(over.statusCode, 413)
    assert.equal(JSON.parse(over.body.toString()).code, 'E_PAYLOAD_TOO_LARGE')
    assert.equal(handled(), 0)
    const at = await post('/small', jsonOf(64))
    assert.equal(at.statusCode, 200, at.body.toString())
    assert.equal(handled(), 1)
  })

  it('leaves other routes at the app limit, and never raises it', async () => {
    const { post } = await build()
    assert.equal((await post('/big', jsonOf(64 * 1024))).statusCode, 200)
    // A route limit above the app's (1 MiB) does not let a larger body in.
    assert.equal((await post('/huge', jsonOf(1024 * 1024 + 1))).statusCode, 413)
  })

  it('takes only positive whole numbers of bytes', () => {
    for (const bad of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      assert.throws(() => Route.post('/x', () => null).bodyLimit(bad), RangeError, String(bad))
    }
  })

  it('the credential limit refuses a declared 900 KB body without reading it into memory', async () => {
    // The declared length is over the limit: refused on the header alone. The stream sends only a
    // kilobyte and ends, so an answer proves nothing waited for (or kept) the 900 KB.
    let sent = 0
    const stream = new Readable({
      read() {
        if (sent === 0) {
          sent = 1024
          this.push(Buffer.alloc(1024, 'x'))
        } else this.push(null)
      },
    }) as unknown as IncomingMessage
    stream.headers = { 'content-length': String(900 * 1024), 'content-type': 'application/json' }
    await assert.rejects(readBody(stream, CREDENTIAL_BODY_LIMIT), { status: 413, code: 'E_PAYLOAD_TOO_LARGE' })
    assert.equal(sent, 1024)
  })

  it('the credential limit also stops a chunked body (no declared length) at the limit', async () => {
    let sent = 0
    const stream = new Readable({
      read() {
        sent += 4096
        this.push(sent > 1024 * 1024 ? null : Buffer.alloc(4096, 'x'))
      },
    }) as unknown as IncomingMessage
    stream.headers = { 'transfer-encoding': 'chunked', 'content-type': 'application/json' }
    await assert.rejects(readBody(stream, CREDENTIAL_BODY_LIMIT), { status: 413, code: 'E_PAYLOAD_TOO_LARGE' })
  })
})
