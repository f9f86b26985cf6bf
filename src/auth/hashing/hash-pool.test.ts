import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { HashPool, RESERVE_NICE, hashNice } from './hash-pool.js'
import { HashAbortedError } from './hash-worker.js'

describe('HashPool', () => {
  it('reads HASH_NICE (0-19, default 19)', () => {
    assert.equal(hashNice(undefined), 19)
    assert.equal(hashNice(''), 19)
    assert.equal(hashNice('5'), 5)
    assert.equal(hashNice('0'), 0)
    for (const bad of ['20', '-1', '2.5', 'low']) assert.equal(hashNice(bad), 19, bad)
  })

  it('stops a thread that has had no job for idleMs, and starts one again for the next job', async () => {
    const pool = new HashPool(2, { idleMs: 150, starvedAfterMs: 60_000 })
    try {
      assert.equal(pool.threads, 0)
      const two = Promise.all([pool.run({ op: 'priority' }), pool.run({ op: 'priority' })])
      // Counted while both jobs are in flight: once one has finished, its thread may already have
      // been idle for idleMs on a loaded machine while the other still starts.
      assert.equal(pool.threads, 2)
      await two
      // A thread kept busy does not stop: one job every 50 ms keeps at least one alive.
      for (let i = 0; i < 5; i++) {
        await new Promise((r) => setTimeout(r, 50))
        await pool.run({ op: 'priority' })
        assert.ok(pool.threads >= 1)
      }
      await new Promise((r) => setTimeout(r, 400))
      assert.equal(pool.threads, 0)
      assert.equal(typeof (await pool.run<number>({ op: 'priority' })), 'number')
      assert.equal(pool.threads, 1)
      assert.equal(pool.stats.finished, 8)
    } finally {
      await pool.close()
    }
  })

  it('hashes on threads below the event loop priority (Linux), one per core at most', async () => {
    // starvedAfterMs: a loaded machine may take a while to start threads; no reserve here.
    const pool = new HashPool(2, { starvedAfterMs: 60_000 })
    try {
      const priorities = await Promise.all([pool.run<number>({ op: 'priority' }), pool.run<number>({ op: 'priority' }), pool.run<number>({ op: 'priority' })])
      for (const p of priorities) assert.equal(p, process.platform === 'linux' ? hashNice(process.env.HASH_NICE) : 0)
      assert.ok(process.platform !== 'linux' || priorities[0]! > 0, 'hashing runs below the event loop priority')
      assert.equal(pool.size, 2)
      const hash = await pool.run<string>({ op: 'argon2.hash', password: 'pool password', options: { memoryCost: 19456, timeCost: 2, parallelism: 1, algorithm: 2, version: 1 } })
      assert.match(hash, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/)
      assert.equal(await pool.run<boolean>({ op: 'argon2.verify', hash, password: 'pool password' }), true)
      assert.equal(await pool.run<boolean>({ op: 'argon2.verify', hash, password: 'other' }), false)
      await assert.rejects(pool.run({ op: 'argon2.verify', hash: 'not a hash', password: 'x' }))
      // The pool still works after a failed job.
      assert.equal(await pool.run<boolean>({ op: 'argon2.verify', hash, password: 'pool password' }), true)
    } finally {
      await pool.close()
    }
  })

  // A background thread that finishes nothing for starvedAfterMs is starving (a busy event loop or
  // other programs take the CPU at nice 19); a job that runs this long stands in for one here.
  const long = { op: 'argon2.hash' as const, password: 'x', options: { memoryCost: 65536, timeCost: 40, parallelism: 1, algorithm: 2, version: 1 } }

  it('starving background threads: the reserve (nice 5) runs the job they hold again, then takes the waiting jobs one after another', { skip: process.platform !== 'linux' && 'thread priorities are Linux only' }, async () => {
    const pool = new HashPool(1, { nice: 19, starvedAfterMs: 100 })
    try {
      const order: string[] = []
      // On the background thread (nice 19) this job blocks 8 s (time enough for the reserve to
      // start on a busy machine); on the reserve it answers at once.
      const starved = pool.run<number>({ op: 'priority', starveMs: 8000 }).then((p) => (order.push('starved'), p))
      const waiting = [1, 2, 3].map((n) => pool.run<number>({ op: 'priority' }).then((p) => (order.push(`job ${n}`), p)))
      assert.deepEqual(await Promise.all([starved, ...waiting]), [RESERVE_NICE, RESERVE_NICE, RESERVE_NICE, RESERVE_NICE])
      // Taken first, it answers first: left to the background thread, or run again only once
      // nothing waits (under a flood, never), it would answer last.
      assert.deepEqual(order, ['starved', 'job 1', 'job 2', 'job 3'], 'first come, first served')
      assert.deepEqual(pool.stats, { started: 4, finished: 4, expired: 0, aborted: 0, hedged: 1 })
      // Work done promptly ends the starvation: the background thread takes jobs again, once it
      // has finished its copy of the starved job.
      let nice = RESERVE_NICE
      for (const until = performance.now() + 60_000; nice !== 19 && performance.now() < until; ) {
        nice = await pool.run<number>({ op: 'priority' })
        if (nice !== 19) await new Promise((r) => setTimeout(r, 20))
      }
      assert.equal(nice, 19)
    } finally {
      await pool.close()
    }
  })

  it('starving background threads: a held job whose client has gone is not run again; the reserve takes the waiting ones', { skip: process.platform !== 'linux' && 'thread priorities are Linux only' }, async () => {
    const pool = new HashPool(1, { nice: 19, starvedAfterMs: 100 })
    try {
      const order: string[] = []
      const client = new AbortController()
      // Blocks 5 s on the background thread; its client leaves at once.
      const gone = pool.run<number>({ op: 'priority', starveMs: 5000 }, { signal: client.signal }).then(
        () => order.push('gone: answered'),
        (error: unknown) => order.push(error instanceof HashAbortedError ? 'gone: aborted' : `gone: ${String(error)}`),
      )
      client.abort()
      const waiting = [1, 2].map((n) => pool.run<number>({ op: 'priority' }).then((p) => (order.push(`job ${n}`), p)))
      assert.deepEqual(await Promise.all(waiting), [RESERVE_NICE, RESERVE_NICE])
      await gone
      // Run again, the abandoned job would have answered (as aborted) before the waiting ones.
      assert.deepEqual(order, ['job 1', 'job 2', 'gone: aborted'])
      assert.equal(pool.stats.hedged, 0)
    } finally {
      await pool.close()
    }
  })

  it('a job starved on a background thread with none waiting runs again on the reserve; the first copy answers', { skip: process.platform !== 'linux' && 'thread priorities are Linux only' }, async () => {
    const pool = new HashPool(1, { nice: 19, starvedAfterMs: 100 })
    try {
      const started = performance.now()
      // On the background thread (nice 19) this job blocks 20 s; on the reserve it answers at once.
      assert.equal(await pool.run<number>({ op: 'priority', starveMs: 20_000 }), RESERVE_NICE)
      assert.ok(performance.now() - started < 15_000, 'answered by the reserve, not after the starved copy')
      assert.deepEqual(pool.stats, { started: 1, finished: 1, expired: 0, aborted: 0, hedged: 1 })
      // The next job finds the background thread still busy with the starved copy: it waits in
      // the queue, and the reserve takes it as a waiting job.
      assert.equal(await pool.run<number>({ op: 'priority' }), RESERVE_NICE)
    } finally {
      await pool.close()
    }
  })

  it('a job is never run again while the background threads answer promptly', { skip: process.platform !== 'linux' && 'thread priorities are Linux only' }, async () => {
    const pool = new HashPool(1, { nice: 19, starvedAfterMs: 60_000 })
    try {
      assert.equal(await pool.run<number>({ op: 'priority', starveMs: 300 }), 19)
      assert.equal(pool.stats.hedged, 0)
    } finally {
      await pool.close()
    }
  })

  it('no reserve while the background threads make progress, nor when they already run at nice 5 or less', { skip: process.platform !== 'linux' && 'thread priorities are Linux only' }, async () => {
    const patient = new HashPool(1, { nice: 19, starvedAfterMs: 60_000 })
    const normal = new HashPool(1, { nice: RESERVE_NICE, starvedAfterMs: 100 })
    try {
      for (const [pool, nice] of [[patient, 19], [normal, RESERVE_NICE]] as const) {
        let longDone = false
        const blocker = pool.run(long).then(() => (longDone = true))
        const next = await pool.run<number>({ op: 'priority' })
        assert.equal(longDone, true, 'the job waited for the only thread')
        assert.equal(next, nice)
        await blocker
      }
    } finally {
      await Promise.all([patient.close(), normal.close()])
    }
  })

  it('close() fails the jobs in flight and waiting, and every later one', async () => {
    const pool = new HashPool(1)
    const slow = { op: 'argon2.hash' as const, password: 'x', options: { memoryCost: 65536, timeCost: 3, parallelism: 1, algorithm: 2, version: 1 } }
    const jobs = [pool.run(slow), pool.run(slow), pool.run(slow)].map((p) => p.then(() => 'done', () => 'failed'))
    await new Promise((r) => setTimeout(r, 20))
    await pool.close()
    assert.deepEqual(await Promise.all(jobs), ['failed', 'failed', 'failed'])
    await assert.rejects(pool.run({ op: 'priority' }), /closed/)
  })

  it('shares the cores out among the processes of serve --workers', () => {
    const saved = process.env.TROWEL_WORKERS
    try {
      delete process.env.TROWEL_WORKERS
      const alone = new HashPool().size
      process.env.TROWEL_WORKERS = String(alone * 2)
      assert.equal(new HashPool().size, 1)
      process.env.TROWEL_WORKERS = '1'
      assert.equal(new HashPool().size, alone)
    } finally {
      if (saved === undefined) delete process.env.TROWEL_WORKERS
      else process.env.TROWEL_WORKERS = saved
    }
  })

  it('the event loop stays free while hashes run', async () => {
    const pool = new HashPool(1)
    try {
      const job = pool.run<string>({ op: 'argon2.hash', password: 'x', options: { memoryCost: 65536, timeCost: 4, parallelism: 1, algorithm: 2, version: 1 } })
      let ticks = 0
      const timer = setInterval(() => ticks++, 1)
      await job
      clearInterval(timer)
      assert.ok(ticks > 0, 'no timer ran while a hash was computed')
    } finally {
      await pool.close()
    }
  })
})
