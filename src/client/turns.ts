/**
 * @module client/turns
 * Browser tabs (and clients of one page or process) taking turns to reauthenticate. With Web Locks (`navigator.locks`) a tab's reauth
 * runs holding an exclusive lock, so a second tab waits, then reads storage again and finds the
 * new token. Where Web Locks are absent, tabs announce "reauthenticating" and "done" on a
 * BroadcastChannel and wait for each other's "done" (at most `timeoutMs`, in case a tab closed
 * mid-way). Two tabs starting within the same instant can still both send their reauth: the
 * server's reuse window answers both with the same successor, so neither fails.
 */

/** The part of the Web Locks API used (`navigator.locks`). */
export interface LockManagerLike {
  request<T>(name: string, callback: (lock: unknown) => Promise<T> | T): Promise<T>
}

/** The part of BroadcastChannel used. */
export interface ChannelLike {
  postMessage(message: unknown): void
  // `any`: DOM's and Node's BroadcastChannel type their MessageEvent differently; only `data` is read.
  onmessage: ((event: any) => void) | null
  close(): void
  /** Node's: lets the process exit while the channel is open. */
  unref?(): void
}

export type ChannelConstructor = new (name: string) => ChannelLike

export interface Turns {
  run<T>(work: () => Promise<T>): Promise<T>
  close(): void
}

export function lockTurns(locks: LockManagerLike, name: string): Turns {
  return {
    run: (work) => locks.request(name, () => work()),
    close: () => undefined,
  }
}

interface TurnMessage {
  trowelTurn: 'start' | 'end'
  id: string
}

function isTurnMessage(value: unknown): value is TurnMessage {
  return typeof value === 'object' && value !== null && 'trowelTurn' in value && 'id' in value
}

export function channelTurns(Channel: ChannelConstructor, name: string, timeoutMs = 10_000): Turns {
  const id = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`
  const busy = new Map<string, ReturnType<typeof setTimeout>>()
  let waiters: (() => void)[] = []
  let channel: ChannelLike | null = null

  const release = (peer: string) => {
    const timer = busy.get(peer)
    if (timer !== undefined) clearTimeout(timer)
    busy.delete(peer)
    if (busy.size === 0) {
      const ready = waiters
      waiters = []
      for (const wake of ready) wake()
    }
  }

  const open = (): ChannelLike => {
    if (channel) return channel
    channel = new Channel(name)
    channel.unref?.()
    channel.onmessage = (event: { data: unknown }) => {
      const message = event.data
      if (!isTurnMessage(message) || message.id === id) return
      if (message.trowelTurn === 'start') {
        const previous = busy.get(message.id)
        if (previous !== undefined) clearTimeout(previous)
        const timer = setTimeout(() => release(message.id), timeoutMs)
        ;(timer as { unref?: () => void }).unref?.()
        busy.set(message.id, timer)
      } else {
        release(message.id)
      }
    }
    return channel
  }

  const othersDone = async (): Promise<void> => {
    if (busy.size === 0) return
    // The timer also keeps a Node process alive while it waits (the channel itself is unref'd).
    let timer: ReturnType<typeof setTimeout> | undefined
    await new Promise<void>((resolve) => {
      waiters.push(resolve)
      timer = setTimeout(resolve, timeoutMs)
    })
    clearTimeout(timer)
  }

  // Open at once: a tab must hear its neighbours' "start" before it needs a turn itself.
  open()
  return {
    async run(work) {
      const line = open()
      await othersDone()
      line.postMessage({ trowelTurn: 'start', id } satisfies TurnMessage)
      try {
        return await work()
      } finally {
        line.postMessage({ trowelTurn: 'end', id } satisfies TurnMessage)
      }
    },
    close() {
      for (const timer of busy.values()) clearTimeout(timer)
      busy.clear()
      channel?.close()
      channel = null
    },
  }
}

/** One client alone (no other tab to wait for). */
export function soloTurns(): Turns {
  return { run: (work) => work(), close: () => undefined }
}

/** Locks shared by every client of this JavaScript realm (one page, one Node process): Web Locks' semantics, in memory. */
const realmTails = new Map<string, Promise<unknown>>()
export const realmLocks: LockManagerLike = {
  request<T>(name: string, callback: (lock: unknown) => Promise<T> | T): Promise<T> {
    const run = (realmTails.get(name) ?? Promise.resolve()).then(() => callback({ name }))
    const tail = run.then(
      () => undefined,
      () => undefined,
    )
    realmTails.set(name, tail)
    // Forget the name once nobody waits behind this turn (no growth with many names).
    void tail.then(() => {
      if (realmTails.get(name) === tail) realmTails.delete(name)
    })
    return run
  },
}

function both(outer: Turns, inner: Turns): Turns {
  return {
    run: (work) => outer.run(() => inner.run(work)),
    close: () => {
      inner.close()
      outer.close()
    },
  }
}

/**
 * How a client takes turns:
 * - `locks` given: those locks; `null`: none of them (then only `Channel`, if given or in a browser);
 * - otherwise Web Locks (`navigator.locks`) where present;
 * - else the in-memory locks of this realm (clients of one page or one Node process), plus, in a
 *   browser, a BroadcastChannel for the other tabs.
 */
export function defaultTurns(name: string, locks: LockManagerLike | null | undefined, Channel: ChannelConstructor | null | undefined): Turns {
  const scope = globalThis as unknown as { navigator?: { locks?: LockManagerLike }; BroadcastChannel?: ChannelConstructor; document?: unknown }
  const channel = Channel === undefined ? (scope.document !== undefined ? scope.BroadcastChannel : undefined) : Channel
  if (locks) return lockTurns(locks, name)
  if (locks === undefined && scope.navigator?.locks) return lockTurns(scope.navigator.locks, name)
  const tabs = channel ? channelTurns(channel, name) : null
  if (locks === null) return tabs ?? soloTurns()
  const realm = lockTurns(realmLocks, name)
  return tabs ? both(realm, tabs) : realm
}
