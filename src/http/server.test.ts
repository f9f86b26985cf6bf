/**
 * The node:http server's answers to clients that are slow or malformed, on a real socket: a
 * connection that sends nothing before the header timeout is closed without a byte (a browser's
 * spare connection must not carry an unasked-for answer); one that started a request and stalls
 * gets 408; headers past the limit get 431; garbage gets 400. Timeouts are shortened for the test.
 */
import { describe, it, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { connect } from 'node:net'
import { Route } from '../routing/route.js'
import { bareApp } from '../testing/bare-app.js'
import { startServer, type RunningServer } from './server.js'

/** Connects, writes `send` (if any), and resolves with every byte received until the server closes. */
function exchange(port: number, send?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    let received = ''
    socket.on('connect', () => {
      if (send !== undefined) socket.write(send)
    })
    socket.on('data', (chunk) => (received += chunk.toString('latin1')))
    socket.on('error', (error) => ((error as { code?: string }).code === 'ECONNRESET' ? resolve(received) : reject(error)))
    socket.on('close', () => resolve(received))
  })
}

describe('startServer: slow and malformed clients', () => {
  let running: RunningServer

  before(async () => {
    const app = await bareApp([Route.get('/hello', () => ({ body: 'hi' }))])
    running = await startServer(app, { port: 0, timeouts: { headersMs: 300, requestMs: 600, checkEveryMs: 50 } })
  })
  after(() => running?.close(100))

  it('answers a well-formed request (the baseline the other cases differ from)', async () => {
    const answer = await exchange(running.port, 'GET /hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')
    assert.match(answer, /^HTTP\/1\.1 200 /)
  })

  it('closes a connection that sent nothing before the header timeout, writing nothing on it', async () => {
    assert.equal(await exchange(running.port), '')
  })

  it('answers 408 to a request that started and stalled', async () => {
    const answer = await exchange(running.port, 'GET /hello HTTP/1.1\r\nHost: x\r\n')
    assert.match(answer, /^HTTP\/1\.1 408 Request Timeout\r\n/)
  })

  it('answers 431 to headers past the limit, and 400 to a malformed request line', async () => {
    const big = await exchange(running.port, `GET /hello HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`)
    assert.match(big, /^HTTP\/1\.1 431 /)
    const garbage = await exchange(running.port, 'NOT A REQUEST\r\n\r\n')
    assert.match(garbage, /^HTTP\/1\.1 400 Bad Request\r\n/)
  })
})
