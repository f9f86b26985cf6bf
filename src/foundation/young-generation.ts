/**
 * @module foundation/young-generation
 * `keepYoungGenerationSmall()`: the server process (`craft serve`, each worker too) keeps V8's
 * young generation at the size it starts with (two 1 MB semi-spaces) instead of letting it double
 * under load up to 32 MB (64 MB on Node 24). That memory stays resident long after a burst: V8
 * gives it back only when its memory reducer runs, seconds to minutes later.
 *
 * Measured with the benchmark app (`GET /api/me`, 50 connections): RSS 1 s after a 10 s load
 * 105 → 80-84 MB and idle RSS 85-88 → 75-81 MB, with the requests served per CPU-second the same
 * within the rounds' spread (bench/RESULTS.md, "Memory after load").
 *
 * It is done with `v8.setFlagsFromString('--semi-space-growth-factor=1')`, which V8 reads each
 * time it would grow the young generation (checked on Node 20, 22 and 24 by
 * `young-generation.test.ts`). A process given its own young-generation flags is left as
 * configured: `--max-semi-space-size`, `--min-semi-space-size` or `--semi-space-growth-factor` on
 * the command line, or `--max-semi-space-size` in `NODE_OPTIONS` (the only one of them Node accepts
 * there): `NODE_OPTIONS=--max-semi-space-size=16` brings back V8's default growth, up to 16 MB per
 * semi-space.
 */
import v8 from 'node:v8'

const YOUNG_GENERATION_FLAG = /--(max|min)[-_]semi[-_]space[-_]size|--semi[-_]space[-_]growth[-_]factor/

/** True when the process was started with a flag that sizes the young generation. */
export function youngGenerationConfigured(execArgv: readonly string[], nodeOptions: string | undefined): boolean {
  return execArgv.some((arg) => YOUNG_GENERATION_FLAG.test(arg)) || YOUNG_GENERATION_FLAG.test(nodeOptions ?? '')
}

let applied = false

const apply = (): void => v8.setFlagsFromString('--semi-space-growth-factor=1')

/**
 * Stops the young generation from growing, unless the process was given its own sizing. Returns
 * whether it did. Starting a worker thread (the password-hashing pool's, or the app's own) makes
 * Node set V8's flags again from the command line, which would undo it: it is applied again when
 * each worker is created and when it comes online.
 */
export function keepYoungGenerationSmall(): boolean {
  if (applied) return true
  if (youngGenerationConfigured(process.execArgv, process.env.NODE_OPTIONS)) return false
  apply()
  process.on('worker', (worker) => {
    apply()
    worker.once('online', apply)
  })
  applied = true
  return true
}
