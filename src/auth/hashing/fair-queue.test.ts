/**
 * The hashing pool's waiting room as pure logic: a fake clock (time moves only when the test says)
 * and fake workers (a job "runs" for a fixed time on the fake clock). No threads, no argon2.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { FairQueue, type DropReason, type QueueClock, type QueueEntry } from './fair-queue.js'

class FakeClock implements QueueClock {
  time = 0
  #id = 0
  readonly timers = new Map<number, { at: number; fn: () => void }>()

  now(): number {
    return this.time
  }

  setTimer(fn: () => void, ms: number): number {
    const id = ++this.#id
    this.timers.set(id, { at: this.time + ms, fn })
    return id
  }

  clearTimer(handle: unknown): void {
    this.timers.delete(handle as number)
  }

  /** Moves time forward by `ms`, firing each timer due on the way at its own time. */
  advance(ms: number): void {
    const end = this.time + ms
    for (;;) {
      let next: [number, { at: number; fn: () => void }] | undefined
      for (const timer of this.timers) if (timer[1].at <= end && (!next || timer[1].at < next[1].at)) next = timer
      if (!next) break
      this.timers.delete(next[0])
      this.time = next[1].at
      next[1].fn()
    }
    this.time = end
  }
}

/** A clock whose timers never fire: stands for a timer that is late. */
class LateClock extends FakeClock {
  override setTimer(): number {
    return 0
  }
}

interface Job {
  client: string
  n: number
}

const name = (job: Job | undefined) => (job ? `${job.client}${job.n}` : 'none')

function setup(options: { fair?: boolean; clock?: FakeClock } = {}) {
  const clock = options.clock ?? new FakeClock()
  const dropped: string[] = []
  const queue = new FairQueue<Job>({
    clock,
    fair: options.fair,
    onDrop: (entry: QueueEntry<Job>, reason: DropReason) => dropped.push(`${name(entry.item)}:${reason}`),
  })
  const counts = new Map<string, number>()
  const push = (client: string, extra: { maxWaitMs?: number; signal?: AbortSignal; key?: string } = {}) => {
    const n = (counts.get(client) ?? 0) + 1
    counts.set(client, n)
    return queue.push({ client, n }, { client: 'key' in extra ? extra.key : client, maxWaitMs: extra.maxWaitMs, signal: extra.signal })
  }
  const drain = () => {
    const order: string[] = []
    for (let entry = queue.take(); entry; entry = queue.take()) order.push(name(entry.item))
    return order
  }
  return { clock, queue, dropped, push, drain }
}

/**
 * Fake workers: `threads` of them, each job takes `jobMs` of fake time. Runs until the queue is
 * empty and every worker idle; `arrivals` pushes jobs at given times. Returns when each job started.
 */
function simulate(
  queue: FairQueue<Job>,
  clock: FakeClock,
  { threads, jobMs, arrivals = [] }: { threads: number; jobMs: number; arrivals?: { at: number; push: () => void }[] },
): Map<string, number> {
  const started = new Map<string, number>()
  const busyUntil: number[] = Array(threads).fill(-1)
  const pending = [...arrivals].sort((a, b) => a.at - b.at)
  for (let guard = 0; guard < 1_000_000; guard++) {
    while (pending.length > 0 && pending[0]!.at <= clock.now()) pending.shift()!.push()
    for (let w = 0; w < threads; w++) {
      if (busyUntil[w]! > clock.now()) continue
      const entry = queue.take()
      if (!entry) break
      started.set(name(entry.item), clock.now())
      busyUntil[w] = clock.now() + jobMs
    }
    const events = [...busyUntil.filter((t) => t > clock.now()), ...(pending.length > 0 ? [pending[0]!.at] : [])]
    if (events.length === 0 && queue.length === 0) return started
    const next = events.length > 0 ? Math.min(...events) : clock.now() + jobMs
    clock.advance(next - clock.now())
  }
  throw new Error('the simulation did not end')
}

describe('FairQueue', () => {
  it('serves the clients round-robin, each client first come first served', () => {
    const { queue, push, drain } = setup()
    for (let i = 0; i < 5; i++) push('a')
    push('b')
    push('b')
    push('c')
    assert.equal(queue.length, 8)
    assert.equal(queue.clients, 3)
    assert.deepEqual(drain(), ['a1', 'b1', 'c1', 'a2', 'b2', 'a3', 'a4', 'a5'])
    assert.equal(queue.length, 0)
    assert.equal(queue.clients, 0)
  })

  it('a newcomer joins the end of the rotation: one job per waiting client before it, however many they queued', () => {
    const { queue, push, drain } = setup()
    for (let i = 0; i < 1000; i++) push('flood')
    for (let i = 0; i < 3; i++) queue.take()
    for (let f = 2; f <= 8; f++) for (let i = 0; i < 100; i++) push(`flood${f}-`)
    push('honest')
    const order = drain()
    assert.equal(order.indexOf('honest1'), 8, 'one job of each of the 8 flooders before it')
    assert.equal(order.length, 997 + 700 + 1)
  })

  it('jobs without a client share one line', () => {
    const { push, drain } = setup()
    push('', {})
    push('x')
    push('', { key: undefined })
    push('', {})
    // '' and no client are the same line: its three jobs, round-robin with x.
    assert.deepEqual(drain(), ['1', 'x1', '2', '3'])
  })

  it('fair: false is one line, first come first served, whoever the client', () => {
    const { queue, push, drain } = setup({ fair: false })
    for (let i = 0; i < 3; i++) push('a')
    push('b')
    push('a')
    assert.equal(queue.clients, 1)
    assert.deepEqual(drain(), ['a1', 'a2', 'a3', 'b1', 'a4'])
  })

  it('whatever the state, a job waits for at most its own line and, from each other line, one job per round', () => {
    let seed = 42
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31
      return seed % n
    }
    for (let round = 0; round < 300; round++) {
      const { queue, push } = setup()
      const clients = ['a', 'b', 'c', 'd', 'e']
      const waiting = new Map<string, number>(clients.map((c) => [c, 0]))
      for (let i = 0, pushes = 1 + random(40); i < pushes; i++) {
        const client = clients[random(clients.length)]!
        push(client)
        waiting.set(client, waiting.get(client)! + 1)
        if (random(4) === 0) {
          const taken = queue.take()!
          waiting.set(taken.client, waiting.get(taken.client)! - 1)
        }
      }
      const who = clients[random(clients.length)]!
      const own = waiting.get(who)!
      const bound = own + clients.filter((c) => c !== who).reduce((n, c) => n + Math.min(waiting.get(c)!, own + 1), 0)
      const mine = push(who)!
      let before = 0
      for (let entry = queue.take(); entry !== mine; entry = queue.take()) {
        assert.ok(entry, 'the pushed job was taken')
        before++
      }
      assert.ok(before <= bound, `round ${round}: ${before} jobs before it, bound ${bound}`)
      if (own === 0) assert.equal(before, clients.filter((c) => c !== who && waiting.get(c)! > 0).length, 'a newcomer: exactly one job per waiting client')
    }
  })

  it('a job leaves when its deadline comes, and the rotation carries on', () => {
    const { clock, queue, dropped, push, drain } = setup()
    push('a', { maxWaitMs: 100 })
    push('a', { maxWaitMs: 300 })
    push('b', { maxWaitMs: 100 })
    push('c')
    clock.advance(99)
    assert.equal(queue.length, 4)
    assert.deepEqual(dropped, [])
    clock.advance(1)
    assert.deepEqual(dropped, ['a1:expired', 'b1:expired'])
    assert.equal(queue.length, 2)
    assert.equal(queue.clients, 2)
    assert.deepEqual(drain(), ['a2', 'c1'])
    clock.advance(1000)
    assert.deepEqual(dropped, ['a1:expired', 'b1:expired'], 'a job taken has no timer left')
    assert.equal(clock.timers.size, 0)
  })

  it('never hands out a job whose deadline has passed, even when its timer is late', () => {
    const { clock, dropped, push, drain } = setup({ clock: new LateClock() })
    push('a', { maxWaitMs: 50 })
    push('b', { maxWaitMs: 500 })
    push('a')
    clock.advance(51)
    assert.deepEqual(drain(), ['b1', 'a2'])
    assert.deepEqual(dropped, ['a1:expired'])
  })

  it('a job may wait its whole maxWaitMs; no limit means no timer', () => {
    const { clock, push, drain } = setup({ clock: new LateClock() })
    push('a', { maxWaitMs: 50 })
    push('a')
    clock.advance(50)
    assert.deepEqual(drain(), ['a1', 'a2'])
    const fake = setup()
    fake.push('a')
    assert.equal(fake.clock.timers.size, 0)
  })

  it('an aborted job leaves at once and is never taken; an already aborted one is never queued', () => {
    const { queue, dropped, push, drain } = setup()
    const first = new AbortController()
    const gone = new AbortController()
    gone.abort()
    push('a')
    push('b', { signal: first.signal })
    push('c')
    assert.equal(push('d', { signal: gone.signal }), null)
    assert.equal(queue.length, 3)
    first.abort()
    assert.deepEqual(dropped, ['b1:aborted'])
    assert.equal(queue.length, 2)
    assert.deepEqual(drain(), ['a1', 'c1'])
  })

  it('aborting after the job was taken changes nothing', () => {
    const { dropped, queue, push } = setup()
    const controller = new AbortController()
    push('a', { signal: controller.signal, maxWaitMs: 10 })
    assert.equal(name(queue.take()?.item), 'a1')
    controller.abort()
    assert.deepEqual(dropped, [])
  })

  it('removing a line before or at the next one keeps the rotation in order', () => {
    const { queue, push, drain } = setup()
    const controllers = [new AbortController(), new AbortController()]
    push('a')
    push('a')
    push('b', { signal: controllers[0]!.signal })
    push('c')
    push('c')
    push('d', { signal: controllers[1]!.signal })
    assert.equal(name(queue.take()?.item), 'a1')
    assert.equal(name(queue.take()?.item), 'b1')
    // Next: c. Remove d (after it), then nothing is skipped or served twice.
    controllers[1]!.abort()
    assert.deepEqual(drain(), ['c1', 'a2', 'c2'])
    // A line removed before the next one.
    const again = setup()
    const b = new AbortController()
    again.push('a')
    again.push('b', { signal: b.signal })
    again.push('c')
    again.push('c')
    assert.equal(name(again.queue.take()?.item), 'a1')
    assert.equal(name(again.queue.take()?.item), 'b1')
    again.push('b', { signal: b.signal })
    // Rotation now: c (next), b. Remove b: c, c.
    b.abort()
    assert.deepEqual(again.drain(), ['c1', 'c2'])
  })

  it('clear() empties the queue: no timers, no listeners, no onDrop', () => {
    const { clock, queue, dropped, push } = setup()
    const controller = new AbortController()
    push('a', { maxWaitMs: 10, signal: controller.signal })
    push('b', { maxWaitMs: 10 })
    assert.deepEqual(queue.clear().map(name).sort(), ['a1', 'b1'])
    assert.equal(clock.timers.size, 0)
    controller.abort()
    clock.advance(100)
    assert.deepEqual(dropped, [])
    assert.equal(queue.length, 0)
    assert.equal(queue.take(), undefined)
  })

  describe('with fake workers', () => {
    it('one thread, a flood of 1,000 checks: a single check waits about one job per client, not 1,000', () => {
      const { clock, queue, push } = setup()
      for (let i = 0; i < 1000; i++) push('flood')
      const started = simulate(queue, clock, { threads: 1, jobMs: 10, arrivals: [{ at: 55, push: () => push('honest') }] })
      const wait = started.get('honest1')! - 55
      // The job running when it came (5 ms left), then one flood job: 15 ms.
      assert.equal(wait, 15)
      assert.equal(started.size, 1001)

      const fifo = setup({ fair: false })
      for (let i = 0; i < 1000; i++) fifo.push('flood')
      const fifoStarted = simulate(fifo.queue, fifo.clock, { threads: 1, jobMs: 10, arrivals: [{ at: 55, push: () => fifo.push('honest') }] })
      assert.equal(fifoStarted.get('honest1')! - 55, 9945, 'first come first served: behind the whole flood')
    })

    it("eight flooders on two threads, with deadlines: the flood's late jobs are dropped, the honest check runs", () => {
      const { clock, queue, dropped, push } = setup()
      for (let i = 0; i < 100; i++) for (let f = 1; f <= 8; f++) push(`f${f}-`, { maxWaitMs: 200 })
      const started = simulate(queue, clock, { threads: 2, jobMs: 10, arrivals: [{ at: 100, push: () => push('honest', { maxWaitMs: 200 }) }] })
      const wait = started.get('honest1')! - 100
      assert.ok(wait <= 40, `waited ${wait} ms: at most one job of each of the 8 flooders on 2 threads`)
      assert.ok(!dropped.includes('honest1:expired'))
      // 200 ms on 2 threads of 10 ms jobs: about 40 flood jobs ran, the rest expired unrun.
      assert.equal(started.size - 1 + dropped.length, 800)
      assert.ok(dropped.length >= 750, `${dropped.length} dropped`)
      for (const [job, at] of started) assert.ok(at <= 200 + (job === 'honest1' ? 100 : 0), `${job} started at ${at}, after its deadline`)
    })

    it('a check whose client left is never run', () => {
      const { clock, queue, push } = setup()
      for (let i = 0; i < 10; i++) push('flood')
      const controller = new AbortController()
      const started = simulate(queue, clock, {
        threads: 1,
        jobMs: 10,
        arrivals: [
          { at: 5, push: () => push('honest', { signal: controller.signal }) },
          { at: 6, push: () => controller.abort() },
        ],
      })
      assert.equal(started.has('honest1'), false)
      assert.equal(started.size, 10)
    })
  })
})
