import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import * as argon2 from '@node-rs/argon2'
import * as bcrypt from '@node-rs/bcrypt'
import { DEFAULT_MAX_WAIT_MS, Hasher, PasswordTooLongError, type HasherOptions } from './index.js'
import { HashPool } from './hash-pool.js'
import { ServerBusyError } from '../../http/errors.js'

const hasher = new Hasher()

describe('Hasher', () => {
  describe('hash', () => {
    it('produces argon2id with the OWASP parameters', async () => {
      const hash = await hasher.hash('correct horse battery staple')
      assert.match(hash, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/)
      assert.notEqual(await hasher.hash('correct horse battery staple'), hash, 'salted')
    })

    it('refuses passwords over 1024 characters before hashing', async () => {
      await assert.rejects(hasher.hash('a'.repeat(1025)), PasswordTooLongError)
      await assert.rejects(hasher.hash('😀'.repeat(1025)), PasswordTooLongError)
      assert.ok(await hasher.hash('😀'.repeat(1024)))
    })
  })

  describe('verify', () => {
    it('round-trips', async () => {
      const hash = await hasher.hash('s3cret pass')
      assert.equal(await hasher.verify(hash, 's3cret pass'), true)
      assert.equal(await hasher.verify(hash, 's3cret pasS'), false)
      assert.equal(await hasher.verify(hash, ''), false)
    })

    it('handles Unicode passwords as UTF-8', async () => {
      const hash = await hasher.hash('pässwörd ✓ 密码')
      assert.equal(await hasher.verify(hash, 'pässwörd ✓ 密码'), true)
      assert.equal(await hasher.verify(hash, 'passwörd ✓ 密码'), false)
    })

    it('verifies bcrypt $2a$, $2b$ and $2y$ hashes', async () => {
      const made = await bcrypt.hash('legacy password', 4)
      assert.match(made, /^\$2[aby]\$04\$/)
      for (const prefix of ['$2a$', '$2b$', '$2y$']) {
        const hash = made.replace(/^\$2[aby]\$/, prefix)
        assert.equal(await hasher.verify(hash, 'legacy password'), true, prefix)
        assert.equal(await hasher.verify(hash, 'wrong password'), false, prefix)
      }
    })

    it('verifies a $2y$ hash as written by PHP (Laravel)', async () => {
      // password_hash('password', PASSWORD_BCRYPT, ['cost' => 4]) style: $2y$ prefix, cost 04.
      const hash = (await bcrypt.hash('laravel-secret', 4)).replace(/^\$2[ab]\$/, '$2y$')
      assert.match(hash, /^\$2y\$04\$/)
      assert.equal(await hasher.verify(hash, 'laravel-secret'), true)
    })

    it('verifies argon2id hashes made with other parameters', async () => {
      const hash = await argon2.hash('other params', { algorithm: 2 as argon2.Algorithm, memoryCost: 8192, timeCost: 3, parallelism: 2 })
      assert.equal(await hasher.verify(hash, 'other params'), true)
    })

    it('returns false, never throws, for malformed hashes and inputs', async () => {
      const good = await hasher.hash('password123')
      const bad = [
        '',
        'password123',
        '$argon2id$',
        '$argon2id$v=19$m=19456,t=2,p=1$zzz',
        good.slice(0, -5),
        '$2b$10$abc',
        '$2x$04$' + 'a'.repeat(53),
        '$2b$99$' + 'a'.repeat(53),
        '$1$salt$hash',
        '5f4dcc3b5aa765d61d8327deb882cf99',
        null,
        undefined,
        42,
      ]
      for (const hash of bad) {
        assert.equal(await hasher.verify(hash as string, 'password123'), false, String(hash))
      }
      assert.equal(await hasher.verify(good, undefined as unknown as string), false)
      assert.equal(await hasher.verify(good, { toString: () => 'password123' } as unknown as string), false)
    })

    it('returns false without hashing for passwords over 1024 characters', async () => {
      const long = 'a'.repeat(1025)
      const hash = await bcrypt.hash(long.slice(0, 72), 4)
      // bcrypt would accept it (it reads 72 bytes only); the length rule comes first.
      assert.equal(await hasher.verify(hash, long), false)
    })
  })

  describe('needsRehash', () => {
    it('is false for a hash this hasher just made', async () => {
      assert.equal(hasher.needsRehash(await hasher.hash('fresh password')), false)
    })

    it('is true for bcrypt hashes', async () => {
      const hash = await bcrypt.hash('legacy', 4)
      for (const prefix of ['$2a$', '$2b$', '$2y$']) assert.equal(hasher.needsRehash(hash.replace(/^\$2b\$/, prefix)), true)
    })

    it('is true for argon2 with weaker parameters or another variant', async () => {
      const weaker = [
        { algorithm: 2, memoryCost: 4096, timeCost: 2, parallelism: 1 },
        { algorithm: 2, memoryCost: 19456, timeCost: 1, parallelism: 1 },
        { algorithm: 1, memoryCost: 19456, timeCost: 2, parallelism: 1 },
        { algorithm: 0, memoryCost: 19456, timeCost: 2, parallelism: 1 },
        { algorithm: 2, memoryCost: 19456, timeCost: 2, parallelism: 1, version: 0 },
      ]
      for (const options of weaker) {
        const hash = await argon2.hash('x', options as argon2.Options)
        assert.equal(hasher.needsRehash(hash), true, hash)
      }
    })

    it('is false for stronger argon2id parameters', async () => {
      const hash = await argon2.hash('x', { algorithm: 2 as argon2.Algorithm, memoryCost: 32768, timeCost: 3, parallelism: 1 })
      assert.equal(hasher.needsRehash(hash), false)
    })

    it('is true for unrecognised strings', () => {
      for (const hash of ['', 'plain', '$argon2id$broken', null]) assert.equal(hasher.needsRehash(hash as string), true)
    })
  })

  describe('dummyVerify and the verification counter', () => {
    it('always resolves false, even for any password', async () => {
      const counted = new Hasher()
      assert.equal(await counted.dummyVerify('password'), false)
      assert.equal(await counted.dummyVerify(''), false)
      assert.equal(counted.verifications, 2)
    })

    it('counts exactly one verification per login attempt, known user or not', async () => {
      const counted = new Hasher()
      const stored = await counted.hash('right password')
      assert.equal(counted.verifications, 0, 'hash is not a verification')
      await counted.verify(stored, 'wrong password')
      assert.equal(counted.verifications, 1)
      await counted.dummyVerify('wrong password')
      assert.equal(counted.verifications, 2)
      await counted.verify('malformed', 'x')
      await counted.dummyVerify('a'.repeat(2000))
      assert.equal(counted.verifications, 4)
    })

    it('does the dummy work with custom parameters too', async () => {
      const custom = new Hasher({ memoryCost: 8192, timeCost: 2, parallelism: 1 })
      assert.equal(await custom.dummyVerify('x'), false)
      assert.match(await custom.hash('x'), /m=8192,t=2,p=1/)
      assert.equal(custom.needsRehash(await hasher.hash('x')), false)
    })
  })
})

describe('Hasher: fair, bounded checks (SPEC §9 item 5)', () => {
  // Cheap hashes for the checks; a slow job run straight on the pool keeps its one thread busy.
  const cheap = { memoryCost: 1024, timeCost: 1 }
  const slow = { op: 'argon2.hash' as const, password: 'x', options: { memoryCost: 65536, timeCost: 10, parallelism: 1, algorithm: 2, version: 1 } }
  // starvedAfterMs: no reserve thread, so one thread takes the jobs one by one, in queue order.
  const onePool = (options: { fair?: boolean } = {}) => new HashPool(1, { starvedAfterMs: 60_000, ...options })
  const isAbort = (error: unknown) => error instanceof Error && error.name === 'AbortError'
  const isBusy = (error: unknown) =>
    error instanceof ServerBusyError && error.status === 503 && error.code === 'E_SERVER_BUSY' && Number(error.headers['Retry-After']) >= 1
  /** Handles the rejection at once (no unhandled rejection while another is awaited); rethrows when awaited. */
  const later = <T>(promise: Promise<T>): Promise<T> => {
    promise.catch(() => {})
    return promise
  }
  // A generous limit where the test is not about the limit: the machine may be busy with other tests.
  const patient = 60_000
  /** Runs `test` with a hasher of cheap hashes (and `options`) on a one-thread pool, closed afterwards. */
  const onOnePool = async (options: HasherOptions, test: (hasher: Hasher, pool: HashPool) => Promise<void>): Promise<void> => {
    const pool = onePool()
    try {
      await test(new Hasher({ ...cheap, pool, ...options }), pool)
    } finally {
      await pool.close()
    }
  }

  it('verify and dummyVerify take a client, a signal and a maxWaitMs, and answer as before', () =>
    onOnePool({}, async (hasher) => {
      const stored = await hasher.hash('right password', { client: '192.0.2.1' })
      const options = { client: '192.0.2.1', signal: new AbortController().signal, maxWaitMs: patient }
      assert.equal(await hasher.verify(stored, 'right password', options), true)
      assert.equal(await hasher.verify(stored, 'wrong password', options), false)
      assert.equal(await hasher.verify('$argon2id$broken', 'x', options), false, 'an unreadable hash is still false')
      assert.equal(await hasher.verify('not a hash', 'x', options), false)
      assert.equal(await hasher.dummyVerify('x', { client: '2001:db8::1', maxWaitMs: patient }), false)
      assert.equal(hasher.verifications, 5)
    }),
  )

  it('maxWaitMs: 2000 by default, set by the constructor or later; hash() waits without a limit unless given one', async () => {
    assert.equal(DEFAULT_MAX_WAIT_MS, 2000)
    assert.equal(new Hasher().maxWaitMs, 2000)
    assert.equal(new Hasher({ maxWaitMs: 500 }).maxWaitMs, 500)
    await onOnePool({ maxWaitMs: 1 }, async (hasher, pool) => {
      hasher.maxWaitMs = 5
      const blocker = pool.run(slow)
      assert.match(await hasher.hash('registration'), /^\$argon2id\$/)
      await blocker
      const blocker2 = pool.run(slow)
      await assert.rejects(hasher.hash('bounded', { maxWaitMs: 5 }), isBusy)
      await blocker2
    })
  })

  it('a check that cannot start within maxWaitMs is not run: ServerBusyError (503 E_SERVER_BUSY, Retry-After)', () =>
    onOnePool({ maxWaitMs: 20 }, async (hasher, pool) => {
      const stored = await hasher.hash('pw')
      const startedBefore = pool.stats.started
      const blocker = pool.run(slow)
      const checks = [hasher.verify(stored, 'pw'), hasher.dummyVerify('pw'), hasher.verify(stored, 'pw', { maxWaitMs: 30 })].map(later)
      for (const check of checks) await assert.rejects(check, isBusy)
      await blocker
      const stats = pool.stats
      assert.equal(stats.started - startedBefore, 1, 'only the blocker ran')
      assert.equal(stats.expired, 3, 'each left the queue when its time was up')
      assert.equal(hasher.verifications, 3, 'refused checks still count as verifications')
      // The thread free again: checks run.
      assert.equal(await hasher.verify(stored, 'pw', { maxWaitMs: patient }), true)
    }),
  )

  it('a check whose client left before it started is never run', () =>
    onOnePool({ maxWaitMs: patient }, async (hasher, pool) => {
      const stored = await hasher.hash('pw')
      await hasher.dummyVerify('warm up') // makes the custom-cost dummy hash
      const startedBefore = pool.stats.started
      const blocker = pool.run(slow)
      const controller = new AbortController()
      const check = later(hasher.verify(stored, 'pw', { client: '192.0.2.9', signal: controller.signal }))
      const dummy = later(hasher.dummyVerify('pw', { client: '192.0.2.9', signal: controller.signal }))
      await new Promise((r) => setImmediate(r)) // dummyVerify queues after awaiting its dummy hash
      assert.equal(hasher.queueLength, 2)
      controller.abort()
      assert.equal(hasher.queueLength, 0, 'removed from the queue at once')
      await assert.rejects(check, isAbort)
      await assert.rejects(dummy, isAbort)
      // Already gone when asked: nothing is queued.
      await assert.rejects(hasher.verify(stored, 'pw', { signal: controller.signal }), isAbort)
      await blocker
      assert.equal(pool.stats.started - startedBefore, 1, 'only the blocker ran: no check of a client who left')
      assert.equal(pool.stats.aborted, 3)
      assert.equal(hasher.verifications, 4)
    }),
  )

  it('a check already running when its client leaves finishes, and its result is thrown away', () =>
    onOnePool({ maxWaitMs: patient }, async (hasher, pool) => {
      const stored = await hasher.hash('pw')
      const controller = new AbortController()
      const finishedBefore = pool.stats.finished
      const check = hasher.verify(stored, 'pw', { signal: controller.signal })
      assert.equal(hasher.queueLength, 0, 'the thread took it at once')
      controller.abort()
      await assert.rejects(check, isAbort)
      assert.equal(pool.stats.finished - finishedBefore, 1, 'it ran to the end')
    }),
  )

  it('a broken pool is ServerBusyError with the failure as cause, never false and never a plain error', async () => {
    const pool = onePool()
    const hasher = new Hasher({ ...cheap, pool })
    const stored = await hasher.hash('pw')
    await pool.close()
    for (const attempt of [hasher.verify(stored, 'pw'), hasher.verify('$2b$04$' + 'a'.repeat(53), 'pw'), hasher.verify('unknown', 'pw'), hasher.dummyVerify('pw'), hasher.hash('pw')].map((p) => later<unknown>(p))) {
      await assert.rejects(attempt, (error: unknown) => isBusy(error) && /closed/.test(String((error as Error).cause)))
    }
    // A custom-cost hasher makes its dummy hash first: that failing is ServerBusyError too.
    const custom = new Hasher({ memoryCost: 2048, timeCost: 1, pool })
    await assert.rejects(custom.dummyVerify('pw'), isBusy)
  })

  it('clients are served round-robin: a single check overtakes a flood queued before it', async () => {
    for (const fair of [true, false]) {
      const pool = onePool({ fair })
      try {
        const hasher = new Hasher({ ...cheap, pool, maxWaitMs: patient })
        await hasher.dummyVerify('warm up')
        const order: string[] = []
        const blocker = pool.run(slow)
        // Four addresses of one IPv6 /64 are one client.
        const flood = Array.from({ length: 4 }, (_, i) => hasher.dummyVerify('x', { client: `2001:db8:1:2::${i + 1}` }).then(() => order.push(`flood ${i + 1}`)))
        const honest = hasher.dummyVerify('x', { client: '192.0.2.1' }).then(() => order.push('honest'))
        await Promise.all([blocker, honest, ...flood])
        assert.deepEqual(order, fair ? ['flood 1', 'honest', 'flood 2', 'flood 3', 'flood 4'] : ['flood 1', 'flood 2', 'flood 3', 'flood 4', 'honest'], fair ? 'fair' : 'HASH_FAIR=0: first come first served')
        assert.equal(pool.fair, fair)
      } finally {
        await pool.close()
      }
    }
  })

  it('reports the jobs waiting (queueLength) and each job\'s wait (onWait)', () =>
    onOnePool({ maxWaitMs: patient }, async (hasher, pool) => {
      const waits: number[] = []
      await hasher.dummyVerify('warm up') // makes the custom-cost dummy hash
      hasher.onWait = (ms) => waits.push(ms)
      assert.equal(hasher.queueLength, 0)
      const blocker = pool.run(slow)
      const checks = [hasher.dummyVerify('a', { client: '192.0.2.1' }), hasher.dummyVerify('b', { client: '192.0.2.2' }), hasher.dummyVerify('c')].map(later)
      await new Promise((r) => setImmediate(r)) // dummyVerify queues after awaiting its dummy hash
      assert.equal(hasher.queueLength, 3)
      assert.equal(pool.queueLength, 3)
      await Promise.all([blocker, ...checks])
      assert.equal(hasher.queueLength, 0)
      assert.equal(waits.length, 3, 'one per job of this hasher (the blocker is not its job)')
      for (const ms of waits) assert.ok(Number.isFinite(ms) && ms >= 0)
      assert.ok(Math.max(...waits) > 0, 'they waited for the blocker')
      // A callback that throws changes nothing.
      hasher.onWait = () => {
        throw new Error('metrics bug')
      }
      assert.equal(await hasher.dummyVerify('d'), false)
    }),
  )
})
