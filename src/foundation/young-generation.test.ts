import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { youngGenerationConfigured } from './young-generation.js'

const MODULE = fileURLToPath(new URL('./young-generation.ts', import.meta.url))

/**
 * A fresh process that (optionally) calls keepYoungGenerationSmall(), then allocates about 300 MB
 * while keeping a sliding window of objects alive (as requests in flight are), and prints whether
 * it applied the setting and the young generation's committed size in MB.
 */
function youngGenerationAfterAllocating(keep: boolean, env: NodeJS.ProcessEnv = {}, startWorker = false): { applied: boolean; newSpaceMb: number } {
  const script = `
    import v8 from 'node:v8'
    import { Worker } from 'node:worker_threads'
    import { keepYoungGenerationSmall } from ${JSON.stringify(MODULE)}
    const applied = ${keep} ? keepYoungGenerationSmall() : false
    if (${startWorker}) {
      // Node sets V8's flags again when a worker thread starts.
      const worker = new Worker('1', { eval: true, execArgv: [] })
      await new Promise((resolve) => worker.once('exit', resolve))
    }
    const window = new Array(20_000)
    for (let i = 0; i < 2_000_000; i++) {
      const o = { i, s: 'request ' + i, list: [i, i + 1] }
      if (i % 8 === 0) window[(i / 8) % window.length] = o
    }
    const space = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')
    console.log(JSON.stringify({ applied, newSpaceMb: space.physical_space_size / 1048576 }))
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

  it('keeps the young generation at its starting size under sustained allocation (and without it, V8 grows it)', () => {
    const grown = youngGenerationAfterAllocating(false)
    const kept = youngGenerationAfterAllocating(true)
    assert.equal(kept.applied, true)
    assert.ok(grown.newSpaceMb >= 8, `without the setting the young generation grows (${grown.newSpaceMb} MB)`)
    assert.ok(kept.newSpaceMb <= 4, `with it, it stays small (${kept.newSpaceMb} MB)`)
  })

  it('still keeps it small after a worker thread started (Node resets V8 flags then)', () => {
    const kept = youngGenerationAfterAllocating(true, {}, true)
    assert.ok(kept.newSpaceMb <= 4, `after a worker, it stays small (${kept.newSpaceMb} MB)`)
  })

  it('leaves a process alone that was given its own young-generation size', () => {
    const r = youngGenerationAfterAllocating(true, { NODE_OPTIONS: '--max-semi-space-size=16' })
    assert.equal(r.applied, false)
    assert.ok(r.newSpaceMb >= 8, `the operator's setting holds (${r.newSpaceMb} MB)`)
  })
})
