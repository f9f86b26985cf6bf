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

function fakeBytes(body: Buffer, contentType: string): IncomingMessage {
  const stream = Readable.from([body]) as unknown as IncomingMessage
  stream.headers = { 'content-length': String(body.length), 'content-type': contentType }
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
    const deep = (n: number) => '{"a":' + '['.repeat(n) + ']'.repeat(n) + '}'
    await assert.rejects(readBody(fake(deep(400_000), { 'content-type': 'application/json' }), 2_000_000), { status: 400, code: 'E_BAD_REQUEST' })
    assert.ok((await readBody(fake(deep(63), { 'content-type': 'application/json' }))).a)
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

  it('parses multipart form fields like url-encoded ones; refuses files and a missing boundary', async () => {
    const form = new FormData()
    form.append('username', 'ada@example.test')
    form.append('password', 'pässword ✓')
    form.append('tag', 'a')
    form.append('tag', 'b')
    form.append('__proto__', 'x')
    const request = new Request('http://x/', { method: 'POST', body: form })
    const text = Buffer.from(await request.arrayBuffer()).toString('latin1')
    const body = await readBody(fakeBytes(Buffer.from(text, 'latin1'), request.headers.get('content-type')!))
    assert.deepEqual({ ...body }, { username: 'ada@example.test', password: 'pässword ✓', tag: ['a', 'b'] })

    const withFile = new FormData()
    withFile.append('username', 'ada@example.test')
    withFile.append('avatar', new Blob(['GIF89a']), 'avatar.gif')
    const fileRequest = new Request('http://x/', { method: 'POST', body: withFile })
    const fileBody = Buffer.from(await fileRequest.arrayBuffer())
    await assert.rejects(readBody(fakeBytes(fileBody, fileRequest.headers.get('content-type')!)), { status: 415, code: 'E_UNSUPPORTED_MEDIA_TYPE' })
    await assert.rejects(readBody(fakeBytes(fileBody, 'multipart/form-data')), { status: 400, code: 'E_BAD_REQUEST' })
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
