/**
 * @module api/revocation/token-epochs
 * `DRIVERS.jwt.revocation = 'epoch'`: "sign out everywhere" without a query per request.
 *
 * Every user has a `token_epoch` (an integer column, 0 at first) and `token_epoch_at` (when it
 * was last raised, milliseconds since 1970 by the raising process's clock). Each JWT carries the
 * epoch of its user when it was issued, as the `uep` claim. Raising the epoch (`bump`: a password
 * reset or change, "log out other devices", "This wasn't me", account deletion) refuses every
 * token of that user carrying a smaller `uep`.
 *
 * The check is made against this process's memory, never the database:
 * - at startup `load()` reads every user whose epoch is above 0 (one query; with an `expires`
 *   lifetime only those raised within it, since older tokens have expired anyway);
 * - then the process learns of raises through Redis pub/sub when `REDIS_URL` is set (a channel
 *   per app, scoped by a digest of APP_KEY), else by polling the rows raised recently
 *   (`token_epoch_at` within the last minute) every 750 ms, so a raise anywhere is known
 *   everywhere within 1 s. After a Redis outage the process catches up with one such read.
 * - with Redis, every process also polls the database every 5 s (`safetyPollMs`, never more than
 *   10 s), so a message lost on the way (a publish that failed, a subscriber that missed it
 *   without noticing) delays a revocation by at most that. A failed publish is retried twice
 *   (after 1 s, then 2 s); the safety poll covers it in any case.
 * - the raising process updates its own memory at once.
 * - a deleted user (`bump(id, db, { deleting: true })`) also leaves a row in `token_epoch_deletions`,
 *   read by the polls and at startup like a raise; it is deleted at startup once older than the
 *   token lifetime (kept when tokens do not expire). Whether the app has that table is the
 *   `tombstones` option's answer (the app's migrated tables, read once at boot), never a schema
 *   query here.
 * Memory: one Map entry per user whose epoch is above 0 (and, with `expires`, raised within the
 * lifetime): about 100 bytes each.
 * A known epoch only ever grows (`note` keeps the larger), so messages arriving twice or out of
 * order are harmless.
 */
import { createHash } from 'node:crypto'
import { createRequire } from 'node:module'
import type { Knex } from 'knex'
import type { Redis } from 'ioredis'

const requireModule = createRequire(import.meta.url)

/** The column holding a user's epoch, and the one holding when it was last raised. */
export const EPOCH_COLUMN = 'token_epoch'
export const EPOCH_AT_COLUMN = 'token_epoch_at'
/**
 * A deleted user's last word: their row is gone, so polls of `users` cannot see the raise that
 * refused their tokens; a row here (`user_id`, `raised_at`) carries it to every process.
 */
export const TOMBSTONE_TABLE = 'token_epoch_deletions'
/** The epoch a deleted user's id is held at: every token of theirs is refused. */
export const DELETED_EPOCH = 2_147_483_647
/** The claim carrying the epoch in a token. */
export const EPOCH_CLAIM = 'uep'

/** How often the database is read without Redis. Below 1 s so that a raise is seen within 1 s. */
export const DEFAULT_POLL_MS = 750
/** How often the database is read with Redis too: a lost message is made up for within this. */
export const DEFAULT_SAFETY_POLL_MS = 5_000
/** The longest safety poll interval allowed (`safetyPollMs` above it is capped). */
export const MAX_SAFETY_POLL_MS = 10_000
/** How many times a raise is published (the first try and its retries), and the first retry's delay. */
export const PUBLISH_ATTEMPTS = 3
export const PUBLISH_RETRY_MS = 1_000
/**
 * How far back each poll looks, before the previous poll's start: rows raised in a transaction
 * that committed late, and clocks of other servers up to this much behind, are still seen.
 */
export const POLL_OVERLAP_MS = 60_000

/** `trowel:token-epoch:<scope>`: one channel per app (APP_KEY), as the throttle keys are scoped. */
export function epochChannel(appKey: string | undefined = process.env.APP_KEY): string {
  const scope = appKey ? createHash('sha256').update(`trowel token epoch scope\u0000${appKey}`).digest('hex').slice(0, 16) : 'default'
  return `trowel:token-epoch:${scope}`
}

export interface TokenEpochsOptions {
  /** The users' connection. */
  db: () => Knex
  table: string
  primaryKey: string
  /** Token lifetime in seconds (`expires`), or null: bounds what `load()` keeps. */
  lifetimeSeconds?: number | null
  /** Redis for pub/sub; absent: the database is polled. */
  redisUrl?: string | null
  pollMs?: number
  /** With Redis: how often the database is read anyway (default 5000, at most 10000). */
  safetyPollMs?: number
  /** The delay before the first retry of a failed publish (doubled for the next; default 1000). */
  publishRetryMs?: number
  channel?: string
  /**
   * Whether the app has `token_epoch_deletions` (the epoch migration creates it with the columns;
   * an app that ran the migration before it had the table lacks it). `db`: the caller's
   * transaction, for a first read on SQLite. Absent: no tombstones are written or read.
   */
  tombstones?: (db?: Knex | Knex.Transaction) => boolean | Promise<boolean>
  log?: { warn(event: string, data?: Record<string, unknown>): void; info?(event: string, data?: Record<string, unknown>): void }
  now?: () => number
}

export class TokenEpochs {
  readonly #known = new Map<string, number>()
  readonly #options: TokenEpochsOptions
  readonly #now: () => number
  readonly channel: string
  #timer: NodeJS.Timeout | undefined
  #subscriber: Redis | undefined
  #publisher: Redis | undefined
  /** When the last successful poll (or catch-up) started; the next looks back from there. */
  #syncedAt = 0
  #polling = false
  #stopped = false
  #redisDownSince: number | null = null
  /** Pending retries of failed publishes (cleared by `stop`). */
  readonly #retries = new Set<NodeJS.Timeout>()

  constructor(options: TokenEpochsOptions) {
    this.#options = options
    this.#now = options.now ?? Date.now
    this.channel = options.channel ?? epochChannel()
  }

  /** The epoch this process knows for user `id` (0 when it never saw one raised). No query. */
  known(id: string): number {
    return this.#known.get(id) ?? 0
  }

  /** Whether a token of user `sub` carrying `uep` is still valid. No query. */
  accepts(sub: string, uep: unknown): boolean {
    return typeof uep === 'number' && Number.isInteger(uep) && uep >= this.known(sub)
  }

  /** Records that user `id`'s epoch is at least `epoch`. */
  note(id: string, epoch: number): void {
    if (!Number.isFinite(epoch) || epoch <= 0) return
    if (epoch > (this.#known.get(id) ?? 0)) this.#known.set(id, epoch)
  }

  /** How many users this process knows an epoch for (memory use). */
  get size(): number {
    return this.#known.size
  }

  /** The user's epoch to put in a new token: the stored one, or the known one if larger. One query. */
  async current(id: unknown, db?: Knex | Knex.Transaction): Promise<number> {
    const { table, primaryKey } = this.#options
    const row = await (db ?? this.#options.db())(table).where(primaryKey, id as string | number).first(EPOCH_COLUMN)
    const stored = Number(row?.[EPOCH_COLUMN] ?? 0) || 0
    this.note(String(id), stored)
    return Math.max(stored, this.known(String(id)))
  }

  /**
   * Raises user `id`'s epoch by one: every token issued before is refused, in this process at
   * once and in every other within 1 s. Runs in `db` (the caller's transaction, if any).
   */
  async bump(id: unknown, db?: Knex | Knex.Transaction, options: { deleting?: boolean } = {}): Promise<number> {
    const conn = db ?? this.#options.db()
    const { table, primaryKey } = this.#options
    const key = id as string | number
    // One more than the stored epoch, and than the one this process knows: after a raise whose
    // transaction rolled back, memory is ahead of the row and tokens may carry that larger `uep`;
    // they must be refused too.
    const known = this.known(String(id))
    // `known` is an integer of ours, written inline: a typed parameter in CASE differs per database.
    const floor = Number.isSafeInteger(known) ? known : 0
    const raised = conn.raw(`CASE WHEN ?? >= ${floor} THEN ?? + 1 ELSE ${floor + 1} END`, [EPOCH_COLUMN, EPOCH_COLUMN])
    const updated = await conn(table).where(primaryKey, key).update({ [EPOCH_COLUMN]: raised, [EPOCH_AT_COLUMN]: this.#now() })
    if (!updated) return 0
    const row = await conn(table).where(primaryKey, key).first(EPOCH_COLUMN)
    let epoch = Math.max(Number(row?.[EPOCH_COLUMN] ?? 0) || 0, known + 1)
    // The row is about to go: polls of `users` will not see this raise, the tombstone will.
    if (options.deleting && (await this.#tombstonesExist(conn))) {
      await conn(TOMBSTONE_TABLE).insert({ user_id: String(id), raised_at: this.#now() })
      epoch = DELETED_EPOCH
    }
    this.note(String(id), epoch)
    await this.#publish(String(id), epoch)
    return 1
  }

  /** Reads every raised epoch (once, at startup), then follows raises by pub/sub or polling. */
  async start(): Promise<void> {
    this.#stopped = false
    try {
      await this.load()
    } catch (error) {
      // E.g. the column's migration has not run yet (an app's tests migrate after booting). The
      // polls that follow look back from the beginning (`#syncedAt` 0), so the first one that
      // succeeds reads every raised epoch; with Redis they run until one succeeds.
      this.#syncedAt = 0
      this.#options.log?.warn('api.token_epoch_load_failed', {
        error: error instanceof Error ? error.message : String(error),
        hint: 'users.token_epoch is needed by revocation: epoch: node craft migration add_token_epoch_to_users && node craft migrate',
      })
    }
    if (this.#options.redisUrl) await this.#subscribe(this.#options.redisUrl)
    this.#schedulePoll()
  }

  /** Every user whose epoch is above 0 (raised within the token lifetime, when there is one). */
  async load(): Promise<void> {
    const startedAt = this.#now()
    const { table, primaryKey, lifetimeSeconds } = this.#options
    const query = this.#options.db()(table).select(primaryKey, EPOCH_COLUMN).where(EPOCH_COLUMN, '>', 0)
    // A token older than the lifetime has expired: raises before then need not be remembered.
    // (Reauth reads the stored epoch itself, so an expired token cannot be re-issued either.)
    if (lifetimeSeconds) query.where(EPOCH_AT_COLUMN, '>', startedAt - lifetimeSeconds * 1000 - POLL_OVERLAP_MS)
    for (const row of await query) this.note(String(row[primaryKey]), Number(row[EPOCH_COLUMN]))
    if (await this.#tombstonesExist()) {
      const since = lifetimeSeconds ? startedAt - lifetimeSeconds * 1000 - POLL_OVERLAP_MS : null
      // Tombstones older than every token they refuse are no longer needed.
      if (since !== null) await this.#options.db()(TOMBSTONE_TABLE).where('raised_at', '<=', since).delete()
      await this.#readTombstones(since ?? -1)
    }
    this.#syncedAt = startedAt
  }

  /**
   * Whether the tombstone table exists: the `tombstones` option's answer, the app's migrated
   * tables read once at boot. No schema query on a timer: the table comes with the epoch
   * migration, so a process that booted after it ran knows it; only an app migrated while it runs
   * sees it after a restart, as every feature's table; nothing documented depends on that case.
   */
  async #tombstonesExist(db?: Knex | Knex.Transaction): Promise<boolean> {
    return (await this.#options.tombstones?.(db)) ?? false
  }

  async #readTombstones(since: number): Promise<void> {
    const rows = await this.#options.db()(TOMBSTONE_TABLE).select('user_id').where('raised_at', '>', since)
    for (const row of rows) this.note(String(row.user_id), DELETED_EPOCH)
  }

  /** One poll: the rows raised since the previous poll (minus the overlap). */
  async poll(): Promise<void> {
    if (this.#polling) return
    this.#polling = true
    const startedAt = this.#now()
    try {
      const { table, primaryKey } = this.#options
      const rows = await this.#options.db()(table)
        .select(primaryKey, EPOCH_COLUMN)
        .where(EPOCH_AT_COLUMN, '>', this.#syncedAt - POLL_OVERLAP_MS)
      for (const row of rows) this.note(String(row[primaryKey]), Number(row[EPOCH_COLUMN]))
      if (await this.#tombstonesExist()) await this.#readTombstones(this.#syncedAt - POLL_OVERLAP_MS)
      this.#syncedAt = startedAt
    } catch (error) {
      // The next poll looks back from the last good one: nothing is missed once the database answers.
      this.#options.log?.warn('api.token_epoch_poll_failed', { error: error instanceof Error ? error.message : String(error) })
    } finally {
      this.#polling = false
    }
  }

  /** Stops polling and closes the Redis connections. */
  async stop(): Promise<void> {
    this.#stopped = true
    if (this.#timer) clearTimeout(this.#timer)
    this.#timer = undefined
    for (const retry of this.#retries) clearTimeout(retry)
    this.#retries.clear()
    const clients = [this.#subscriber, this.#publisher].filter((c): c is Redis => c !== undefined)
    this.#subscriber = this.#publisher = undefined
    await Promise.all(clients.map((c) => c.quit().catch(() => c.disconnect())))
  }

  /**
   * The next poll: without Redis every `pollMs`; with Redis every `pollMs` until the first full
   * read has succeeded, then every `safetyPollMs` (a message lost on the way is made up for).
   */
  #schedulePoll(): void {
    if (this.#stopped) return
    const fast = this.#options.pollMs ?? DEFAULT_POLL_MS
    const safety = Math.min(this.#options.safetyPollMs ?? DEFAULT_SAFETY_POLL_MS, MAX_SAFETY_POLL_MS)
    const interval = this.#options.redisUrl && this.#syncedAt !== 0 ? safety : fast
    this.#timer = setTimeout(() => {
      void this.poll().finally(() => this.#schedulePoll())
    }, interval)
    // Never keeps the process alive on its own.
    this.#timer.unref()
  }

  async #subscribe(url: string): Promise<void> {
    const { Redis } = requireModule('ioredis') as typeof import('ioredis')
    const subscriber = new Redis(url, { maxRetriesPerRequest: 1, connectTimeout: 2000, lazyConnect: true })
    this.#subscriber = subscriber
    const publisher = this.#publisherFor(url)
    subscriber.on('message', (channel: string, message: string) => {
      if (channel !== this.channel) return
      try {
        const { id, epoch } = JSON.parse(message) as { id?: unknown; epoch?: unknown }
        if (typeof id === 'string' && typeof epoch === 'number') this.note(id, epoch)
      } catch {
        // Not ours: ignored.
      }
    })
    subscriber.on('error', (error: Error) => {
      if (this.#redisDownSince === null) {
        this.#redisDownSince = this.#now()
        this.#options.log?.warn('api.token_epoch_redis_unavailable', { error: error.message })
      }
    })
    subscriber.on('close', () => void (this.#redisDownSince ??= this.#now()))
    // ioredis re-subscribes by itself after a reconnect; raises published meanwhile were lost:
    // read them from the database.
    subscriber.on('ready', () => {
      if (this.#redisDownSince === null) return
      this.#syncedAt = Math.min(this.#syncedAt, this.#redisDownSince)
      this.#redisDownSince = null
      void this.poll()
    })
    await subscriber.connect()
    await subscriber.subscribe(this.channel)
    await publisher.connect().catch(() => {})
  }

  /** The connection that publishes raises (also made by a process that never started, e.g. a command). */
  #publisherFor(url: string): Redis {
    if (this.#publisher) return this.#publisher
    const { Redis } = requireModule('ioredis') as typeof import('ioredis')
    const publisher = new Redis(url, { maxRetriesPerRequest: 1, connectTimeout: 2000, commandTimeout: 2000, lazyConnect: true })
    publisher.on('error', () => {})
    return (this.#publisher = publisher)
  }

  /**
   * Tells every process of a raise. A failure is retried (`PUBLISH_ATTEMPTS` in all, the delay
   * doubling); the row is raised already, so every process's safety poll sees it anyway.
   */
  async #publish(id: string, epoch: number, attempt = 1): Promise<void> {
    const url = this.#options.redisUrl
    if (!url || (attempt > 1 && this.#stopped)) return
    try {
      await this.#publisherFor(url).publish(this.channel, JSON.stringify({ id, epoch }))
    } catch (error) {
      const last = attempt >= PUBLISH_ATTEMPTS || this.#stopped
      this.#options.log?.warn('api.token_epoch_publish_failed', { error: error instanceof Error ? error.message : String(error), attempt, retry: !last })
      if (last) return
      const delay = (this.#options.publishRetryMs ?? PUBLISH_RETRY_MS) * 2 ** (attempt - 1)
      const retry = setTimeout(() => {
        this.#retries.delete(retry)
        void this.#publish(id, epoch, attempt + 1)
      }, delay)
      retry.unref()
      this.#retries.add(retry)
    }
  }
}
