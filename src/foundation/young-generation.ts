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
 * has reached 8 MB (two 4 MB semi-spaces); then the flag is set and the observer stops. When
 * V8 has shrunk the young generation, a check every 250 ms lets it grow back to the cap in one
 * step (checked on Node 20, 22 and 24 by `young-generation.test.ts`). A process given
 * its own young-generation flags is left as configured: `--max-semi-space-size`,
 * `--min-semi-space-size` or `--semi-space-growth-factor` on the command line, or
 * `--max-semi-space-size` in `NODE_OPTIONS` (the only one of them Node accepts there):
 * `NODE_OPTIONS=--max-semi-space-size=16` brings back V8's default growth, up to 16 MB per
 * semi-space.
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

/** V8's own growth factor for the young generation (the same on Node 20, 22 and 24). */
const V8_GROWTH_FACTOR = 2

/**
 * The growth factor that takes a young generation of `size` bytes as close to `cap` as one step
 * can without passing it (V8 multiplies the size by the factor when it grows the young
 * generation); 1, no growth, once it is within a factor of 2 of the cap.
 */
export function growthFactorToward(size: number, cap: number): number {
  return size > 0 ? Math.max(1, Math.floor(cap / size)) : V8_GROWTH_FACTOR
}

/**
 * The cap's decisions, apart from V8 so they can be tested: after a collection while below the
 * cap, whether the young generation reached it, or is as close as a step can take it (then growth
 * stops and collections need no more watching); on a timer while capped, whether V8 has shrunk it
 * since (then it grows back to the cap in one step, and collections are watched again).
 */
export class YoungGenerationCap {
  capped = false
  /** Growing back after V8 shrank it (by the largest step that fits), not from the start (by 2). */
  #regrowing = false
  /** The factor set last while watching, so an unchanged one is not set again. */
  #factor = V8_GROWTH_FACTOR
  constructor(
    private readonly size: () => number,
    private readonly setGrowthFactor: (factor: number) => void,
    private readonly watchCollections: (on: boolean) => void,
    private readonly cap = YOUNG_GENERATION_CAP_BYTES,
  ) {}

  start(): void {
    this.watchCollections(true)
  }

  /**
   * After a garbage collection (only watched while below the cap). V8 may grow the young
   * generation by less than the factor asked, or shrink it again, so the factor is worked out
   * anew from its size each time.
   */
  afterCollection(): void {
    if (this.capped) return
    const toward = growthFactorToward(this.size(), this.cap)
    if (toward === 1) {
      this.capped = true
      this.#regrowing = false
      this.setGrowthFactor(1)
      this.watchCollections(false)
      return
    }
    const factor = this.#regrowing ? toward : Math.min(V8_GROWTH_FACTOR, toward)
    if (factor !== this.#factor) this.#setWatched(factor)
  }

  /**
   * Now and then: a young generation shrunk below the cap may grow again, straight back to the
   * cap at V8's next growth when it can (from the smallest size, one step of 8 rather than three
   * of 2); one still at the cap has its growth stopped again (a worker thread's heap setup may have
   * reset the factor since).
   */
  check(): void {
    if (!this.capped) return
    const factor = growthFactorToward(this.size(), this.cap)
    if (factor === 1) return this.setGrowthFactor(1)
    this.capped = false
    this.#regrowing = true
    this.#setWatched(factor)
    this.watchCollections(true)
  }

  #setWatched(factor: number): void {
    this.#factor = factor
    this.setGrowthFactor(factor)
  }

  /** A worker thread started: setting up its heap turned V8's growth factor back to 2. */
  workerStarted(): void {
    if (this.capped) this.setGrowthFactor(1)
  }
}

/**
 * How often a capped young generation is looked at. V8 shrinks it to its smallest not only when
 * its memory reducer runs at idle but also in the first second of a load that follows an idle
 * spell (the allocation rate, averaged over the idle time, reads low); until the check sees that,
 * the young generation stays small with growth stopped. With a check every 5 s that was 2-5 s of
 * each 8 s load after 12 s idle (samples every 50 ms of a `craft serve` under `GET /bench/home`).
 * A check reads V8's heap statistics: a few microseconds, four times a second.
 */
const CHECK_INTERVAL_MS = 250

let applied = false

/** The young generation's committed size ("new_space": both semi-spaces). */
function youngGenerationBytes(): number {
  return v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0
}

/**
 * Caps the young generation at two 4 MB semi-spaces, unless the process was given its own
 * sizing. Returns whether it did. Starting a worker thread (the password-hashing pool's, or the
 * app's own) undoes the cap once reached: V8 sets up the worker's heap on the worker's thread and
 * turns the growth factor back to 2 then. The cap is applied again when each worker is created,
 * comes online and exits, and every 250 ms while capped. A collection on the main thread in between
 * (after the worker's heap is set up, before its 'online' event arrives) can still grow the young
 * generation one step, to 16 MB; it goes back to the cap once V8's memory reducer shrinks it.
 */
export function keepYoungGenerationSmall(): boolean {
  if (applied) return true
  if (youngGenerationConfigured(process.execArgv, process.env.NODE_OPTIONS)) return false
  let observer: PerformanceObserver | null = null
  const cap = new YoungGenerationCap(
    youngGenerationBytes,
    (factor) => v8.setFlagsFromString(`--semi-space-growth-factor=${factor}`),
    (on) => {
      observer?.disconnect()
      observer = null
      if (!on) return
      observer = new PerformanceObserver(() => cap.afterCollection())
      observer.observe({ entryTypes: ['gc'] })
    },
  )
  cap.start()
  setInterval(() => cap.check(), CHECK_INTERVAL_MS).unref()
  // When V8 resets the factor differs by version (while the worker starts up, or once it runs):
  // the cap is set again at each step, and the periodic check sets it again in any case.
  process.on('worker', (worker) => {
    cap.workerStarted()
    worker.once('online', () => cap.workerStarted())
    worker.once('exit', () => cap.workerStarted())
  })
  applied = true
  return true
}
