import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { YOUNG_GENERATION_CAP_BYTES, YoungGenerationCap, growthFactorToward, youngGenerationConfigured } from './young-generation.js'

const MODULE = fileURLToPath(new URL('./young-generation.ts', import.meta.url))

/**
 * A fresh process that (optionally) calls keepYoungGenerationSmall(), then allocates about 300 MB
 * while keeping a sliding window of objects alive (as requests in flight are), and prints whether
 * it applied the setting and the young generation's committed size in MB (both semi-spaces).
 */
function youngGenerationAfterAllocating(keep: boolean, env: NodeJS.ProcessEnv = {}, startWorker = false): { applied: boolean; newSpaceMb: number; afterWorkerMb: number; endMb: number } {
  const script = `
    import v8 from 'node:v8'
    import { Worker } from 'node:worker_threads'
    import { keepYoungGenerationSmall } from ${JSON.stringify(MODULE)}
    const applied = ${keep} ? keepYoungGenerationSmall() : false
    // In turns of the event loop, as a server runs: the cap is set from a collection's observer.
    const window = new Array(20_000)
    async function allocate() {
      for (let i = 0; i < 2_000_000; i++) {
        const o = { i, s: 'request ' + i, list: [i, i + 1] }
        if (i % 8 === 0) window[(i / 8) % window.length] = o
        if (i % 10_000 === 0) await new Promise((resolve) => setImmediate(resolve))
      }
    }
    await allocate()
    const newSpace = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')
    const size = () => newSpace().space_size / 1048576
    let afterWorkerMb = size()
    if (${startWorker}) {
      // V8 sets up a worker's heap with the flags as they were given, which undoes the cap: here
      // after the cap was reached.
      const worker = new Worker('1', { eval: true, execArgv: [] })
      await new Promise((resolve) => worker.once('exit', resolve))
      afterWorkerMb = size()
      await allocate()
    }
    console.log(JSON.stringify({ applied, newSpaceMb: newSpace().physical_space_size / 1048576, afterWorkerMb, endMb: size() }))
  `
  const { NODE_OPTIONS: _ignored, ...parentEnv } = process.env
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', env: { ...parentEnv, ...env } })
  assert.equal(r.status, 0, r.stderr)
  return JSON.parse(r.stdout.trim().split('\n').pop()!)
}

describe('keepYoungGenerationSmall', () => {
  it('recognises the flags that size the young generation, on the command line or in NODE_OPTIONS', () => {
    assert.equal(youngGenerationConfigured([], undefined), false)
    assert.equal(youngGenerationConfigured(['--enable-source-maps'], '--max-old-space-size=512'), false)
    assert.equal(youngGenerationConfigured(['--max-semi-space-size=16'], undefined), true)
    assert.equal(youngGenerationConfigured(['--max_semi_space_size', '16'], undefined), true)
    assert.equal(youngGenerationConfigured(['--min-semi-space-size=4'], undefined), true)
    assert.equal(youngGenerationConfigured(['--semi-space-growth-factor=2'], undefined), true)
    assert.equal(youngGenerationConfigured([], '--stack-trace-limit=50 --max-semi-space-size=8'), true)
  })

  it('lets the young generation grow to two 4 MB semi-spaces and no further (without it, V8 grows it to 32 MB or more)', () => {
    const grown = youngGenerationAfterAllocating(false)
    const kept = youngGenerationAfterAllocating(true)
    assert.equal(kept.applied, true)
    assert.ok(grown.newSpaceMb >= 16, `without the setting the young generation grows past the cap (${grown.newSpaceMb} MB)`)
    assert.ok(kept.newSpaceMb <= 8, `with it, it stays at the cap (${kept.newSpaceMb} MB)`)
    assert.ok(kept.newSpaceMb > 2, `with it, it still grows from its starting 2 MB (${kept.newSpaceMb} MB)`)
  })

  it('stops its growth again once a worker thread has started (its heap setup resets the growth factor)', () => {
    // The worker's own heap setup turns V8's growth factor back to 2 on the worker's thread, at a
    // moment the main thread cannot see: a collection on the main thread before the worker comes
    // online may grow the young generation one step (to 16 MB). From then on it must not grow.
    const kept = youngGenerationAfterAllocating(true, {}, true)
    assert.ok(kept.afterWorkerMb <= 16, `at most one step past the cap while the worker started (${kept.afterWorkerMb} MB)`)
    assert.ok(kept.endMb <= Math.max(8, kept.afterWorkerMb), `no growth once the worker is online (${kept.afterWorkerMb} -> ${kept.endMb} MB)`)
  })

  it('leaves a process alone that was given its own young-generation size', () => {
    const r = youngGenerationAfterAllocating(true, { NODE_OPTIONS: '--max-semi-space-size=16' })
    assert.equal(r.applied, false)
    assert.ok(r.newSpaceMb >= 8, `the operator's setting holds (${r.newSpaceMb} MB)`)
  })
})

describe('YoungGenerationCap', () => {
  const MB = 1024 * 1024
  function cap() {
    const log: string[] = []
    let size = 2 * MB
    const c = new YoungGenerationCap(() => size, (f) => log.push(`factor ${f}`), (on) => log.push(on ? 'watch' : 'unwatch'))
    return { c, log, grow: (mb: number) => (size = mb * MB) }
  }

  it('watches collections until the young generation reaches the cap, then stops its growth', () => {
    const { c, log, grow } = cap()
    c.start()
    c.afterCollection()
    grow(4)
    c.afterCollection()
    assert.deepEqual(log, ['watch'])
    grow(YOUNG_GENERATION_CAP_BYTES / MB)
    c.afterCollection()
    assert.deepEqual(log, ['watch', 'factor 1', 'unwatch'])
    assert.equal(c.capped, true)
  })

  it('lets a young generation shrunk below the cap grow again, and caps it again', () => {
    const { c, log, grow } = cap()
    c.start()
    grow(8)
    c.afterCollection()
    c.check()
    assert.deepEqual(log, ['watch', 'factor 1', 'unwatch', 'factor 1'], 'still at the cap: its growth is stopped again (a worker may have reset it)')
    grow(1)
    c.check()
    assert.deepEqual(log.slice(4), ['factor 8', 'watch'], 'back to the cap in one step')
    assert.equal(c.capped, false)
    c.check()
    grow(8)
    c.afterCollection()
    assert.deepEqual(log.slice(6), ['factor 1', 'unwatch'])
  })

  it('works the factor out anew after each collection while it grows back', () => {
    const { c, log, grow } = cap()
    c.start()
    grow(8)
    c.afterCollection()
    grow(1)
    c.check()
    assert.deepEqual(log.slice(3), ['factor 8', 'watch'])
    grow(2)
    c.afterCollection()
    assert.deepEqual(log.slice(5), ['factor 4'], 'V8 grew it by less than asked: 2 MB x 8 would pass the cap')
    c.afterCollection()
    assert.deepEqual(log.slice(6), [], 'an unchanged factor is not set again')
    grow(8)
    c.afterCollection()
    assert.deepEqual(log.slice(6), ['factor 1', 'unwatch'])
  })

  it('stops short of the cap rather than pass it', () => {
    const { c, log, grow } = cap()
    c.start()
    grow(5)
    c.afterCollection()
    assert.deepEqual(log, ['watch', 'factor 1', 'unwatch'], 'a step of 2 from 5 MB would pass 8 MB')
    grow(3)
    c.check()
    assert.deepEqual(log.slice(3), ['factor 2', 'watch'], 'from 3 MB, one step of 2 (6 MB)')
    grow(6)
    c.afterCollection()
    assert.deepEqual(log.slice(5), ['factor 1', 'unwatch'])
    assert.equal(c.capped, true)
  })

  it('grows toward the cap by the largest whole factor that does not pass it', () => {
    const MiB = 1024 * 1024
    assert.equal(growthFactorToward(1 * MiB, 8 * MiB), 8)
    assert.equal(growthFactorToward(2 * MiB, 8 * MiB), 4)
    assert.equal(growthFactorToward(3 * MiB, 8 * MiB), 2)
    assert.equal(growthFactorToward(4 * MiB, 8 * MiB), 2)
    assert.equal(growthFactorToward(4.8 * MiB, 8 * MiB), 1)
    assert.equal(growthFactorToward(8 * MiB, 8 * MiB), 1)
    assert.equal(growthFactorToward(16 * MiB, 8 * MiB), 1)
  })

  it('sets the cap again when a worker starts, once it was reached', () => {
    const { c, log, grow } = cap()
    c.start()
    c.workerStarted()
    assert.deepEqual(log, ['watch'])
    grow(8)
    c.afterCollection()
    c.workerStarted()
    assert.deepEqual(log, ['watch', 'factor 1', 'unwatch', 'factor 1'])
  })
})
