/**
 * @module foundation/young-generation
 * `keepYoungGenerationSmall()`: the server process (`craft serve`, each worker too) lets V8's
 * young generation grow from its starting size (two 1 MB semi-spaces) up to two 4 MB
 * semi-spaces, and no further, instead of the up to 32 MB (64 MB on Node 24) V8 would double it
 * to under load. That memory stays resident long after a burst: V8 gives it back only when its
 * memory reducer runs, seconds to minutes later.
 *
 * Why 4 MB and not the starting 1 MB: a server waiting on PostgreSQL or MySQL keeps every request
 * in flight alive across a scavenge, and with 1 MB semi-spaces those survivors are copied again
 * and again and promoted into the old generation. On `GET /api/me` on PostgreSQL (50 connections,
 * paired runs on a busy machine) the app served 1.3-1.8x the requests per CPU-second with 4 MB
 * semi-spaces than with 1 MB in most pairs; on SQLite, where a request mostly completes before
 * the next one starts, the difference was about 5 % (bench/RESULTS.md, "Memory after load").
 *
 * V8 can only be told at run time not to grow any more: `--semi-space-growth-factor=1`, which it
 * reads each time it would grow the young generation (`--max-semi-space-size` is read once, when
 * the heap is set up). So growth is left alone until, after a collection, the young generation
 * has reached 8 MB (two 4 MB semi-spaces); then the flag is set and the observer stops (checked
 * on Node 20, 22 and 24 by `young-generation.test.ts`). A process given its own young-generation
 * flags is left as configured: `--max-semi-space-size`, `--min-semi-space-size` or
 * `--semi-space-growth-factor` on the command line, or `--max-semi-space-size` in `NODE_OPTIONS`
 * (the only one of them Node accepts there): `NODE_OPTIONS=--max-semi-space-size=16` brings back
 * V8's default growth, up to 16 MB per semi-space.
 */
import v8 from 'node:v8'
import { PerformanceObserver } from 'node:perf_hooks'

const YOUNG_GENERATION_FLAG = /--(max|min)[-_]semi[-_]space[-_]size|--semi[-_]space[-_]growth[-_]factor/

/** The young generation's size at which it stops growing: two semi-spaces of 4 MB. */
export const YOUNG_GENERATION_CAP_BYTES = 2 * 4 * 1024 * 1024

/** True when the process was started with a flag that sizes the young generation. */
export function youngGenerationConfigured(execArgv: readonly string[], nodeOptions: string | undefined): boolean {
  return execArgv.some((arg) => YOUNG_GENERATION_FLAG.test(arg)) || YOUNG_GENERATION_FLAG.test(nodeOptions ?? '')
}

let applied = false
let capped = false

const stopGrowing = (): void => v8.setFlagsFromString('--semi-space-growth-factor=1')

/** The young generation's committed size ("new_space": both semi-spaces). */
function youngGenerationBytes(): number {
  return v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0
}

/**
 * Caps the young generation at two 4 MB semi-spaces, unless the process was given its own
 * sizing. Returns whether it did. Starting a worker thread (the password-hashing pool's, or the
 * app's own) makes Node set V8's flags again from the command line, which would undo the cap once
 * reached: it is applied again when each worker is created and when it comes online.
 */
export function keepYoungGenerationSmall(): boolean {
  if (applied) return true
  if (youngGenerationConfigured(process.execArgv, process.env.NODE_OPTIONS)) return false
  // Checked after each collection (the young generation only grows at one) until it is reached.
  const observer = new PerformanceObserver(() => {
    if (capped || youngGenerationBytes() < YOUNG_GENERATION_CAP_BYTES) return
    capped = true
    stopGrowing()
    observer.disconnect()
  })
  observer.observe({ entryTypes: ['gc'] })
  process.on('worker', (worker) => {
    if (!capped) return
    stopGrowing()
    worker.once('online', stopGrowing)
  })
  applied = true
  return true
}
