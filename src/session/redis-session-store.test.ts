import { describe, it, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { createConnection } from 'node:net'
import { randomToken } from './session.js'
import { RedisSessionStore, REDIS_SESSION_PREFIX } from './stores/redis-session-store.js'
import { ServiceUnavailableError } from '../http/errors.js'

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'

/** True when something answers PING at REDIS_URL within a second. */
function redisReachable(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve) => {
    const socket = createConnection({ host: hostname, port: Number(port || 6379) })
    const done = (ok: boolean) => {
      socket.destroy()
      resolve(ok)
    }
    socket.setTimeout(1000, () => done(false))
    socket.once('error', () => done(false))
    socket.once('connect', () => socket.write('PING\r\n'))
    socket.once('data', (d) => done(d.toString().startsWith('+PONG')))
  })
}

const reachable = await redisReachable(REDIS_URL)
if (!reachable) console.log(`# skipping RedisSessionStore tests: no Redis answers at ${REDIS_URL}`)

describe('RedisSessionStore', { skip: reachable ? false : `Redis unreachable at ${REDIS_URL}` }, () => {
  let store: RedisSessionStore
  before(() => {
    store = new RedisSessionStore(REDIS_URL)
  })
  after(() => store.close())

  it('writes trowel:session:<id> with a TTL, reads it back and destroys it', async () => {
    const id = randomToken()
    const data = { values: { user: 5 }, flash: { status: 'hi' }, csrfToken: 'tok', createdAt: Date.now(), lastActivity: Date.now() }
    await store.write(id, data, 120)
    assert.deepEqual(await store.read(id), data)
    const ttl = await store.client.ttl(REDIS_SESSION_PREFIX + id)
    assert.ok(ttl > 100 && ttl <= 120, `ttl ${ttl}`)
    await store.destroy(id)
    assert.equal(await store.read(id), null)
    assert.equal(await store.client.exists(REDIS_SESSION_PREFIX + id), 0)
  })

  it('reads unknown and malformed entries as null', async () => {
    const id = randomToken()
    assert.equal(await store.read(id), null)
    await store.client.set(REDIS_SESSION_PREFIX + id, '{not json', 'EX', 10)
    assert.equal(await store.read(id), null)
    await store.destroy(id)
  })

  it('lets the key expire with its TTL', async () => {
    const id = randomToken()
    await store.write(id, { values: {}, flash: {}, csrfToken: null, createdAt: 0, lastActivity: 0 }, 1)
    await new Promise((r) => setTimeout(r, 1200))
    assert.equal(await store.read(id), null)
  })
})

describe('RedisSessionStore when Redis is down', () => {
  it('answers 503 E_UNAVAILABLE instead of hanging', async () => {
    const down = new RedisSessionStore('redis://127.0.0.1:1')
    try {
      await assert.rejects(down.read(randomToken()), (e: unknown) => e instanceof ServiceUnavailableError && e.code === 'E_UNAVAILABLE')
    } finally {
      await down.close()
    }
  })
})
