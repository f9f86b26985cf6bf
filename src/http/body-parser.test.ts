import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Readable } from 'node:stream'
import type { IncomingMessage } from 'node:http'
import { readBody } from './body-parser.js'
import { parseQueryString } from './request.js'

function fake(body: string, headers: Record<string, string>): IncomingMessage {
  const stream = Readable.from([Buffer.from(body)]) as unknown as IncomingMessage
  stream.headers = { 'content-length': String(Buffer.byteLength(body)), ...headers }
  return stream
}

describe('readBody', () => {
  it('parses JSON objects and drops prototype keys', async () => {
    const body = await readBody(fake('{"a":1,"__proto__":{"x":1},"constructor":{"prototype":{"y":1}}}', { 'content-type': 'application/json' }))
    assert.equal(body.a, 1)
    assert.equal(Object.hasOwn(body, '__proto__'), false)
    assert.equal(({} as Record<string, unknown>).x, undefined)
  })

  it('rejects malformed JSON and non-object JSON with 400', async () => {
    await assert.rejects(readBody(fake('{"a":', { 'content-type': 'application/json' })), { status: 400, code: 'E_BAD_REQUEST' })
    await assert.rejects(readBody(fake('[1,2]', { 'content-type': 'application/json' })), { status: 400 })
  })

  it('parses url-encoded forms; repeated keys become arrays', async () => {
    const body = await readBody(fake('a=1&b=2&b=3&__proto__=x', { 'content-type': 'application/x-www-form-urlencoded' }))
    assert.equal(body.a, '1')
    assert.deepEqual(body.b, ['2', '3'])
    assert.equal(Object.hasOwn(body, '__proto__'), false)
  })

  it('answers 413 over the limit and 415 for other content types', async () => {
    await assert.rejects(readBody(fake('x'.repeat(2000), { 'content-type': 'application/json' }), 1000), { status: 413, code: 'E_PAYLOAD_TOO_LARGE' })
    await assert.rejects(readBody(fake('<a/>', { 'content-type': 'application/xml' })), { status: 415 })
  })

  it('an empty body is an empty object', async () => {
    assert.deepEqual({ ...(await readBody(fake('', { 'content-type': 'application/json' }))) }, {})
  })
})

describe('parseQueryString', () => {
  it('keeps [] keys as arrays', () => {
    assert.deepEqual({ ...parseQueryString('ids[]=1&ids[]=2') }, { ids: ['1', '2'] })
  })
})
