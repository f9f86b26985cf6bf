/**
 * @module auth/throttle/redis-throttle-store
 * A `ThrottleStore` in Redis, shared by every process and machine of an app
 * (`SESSION_DRIVER=redis`, `REDIS_URL`). Each hit is one Lua script (INCR, then PEXPIRE only
 * when the key has no expiry yet), so the count and its window are updated atomically and a
 * crash can never leave a counter without an expiry. Keys are `trowel:throttle:<sha256 of key>`:
 * no e-mail address or IP is written to Redis in clear.
 */
import type { Cluster, Redis } from 'ioredis'
import { sha256Hex } from '../tokens/sha256-hex.js'
import { assertWindow, type ThrottleEntry, type ThrottleStore } from './throttle-store.js'

export interface RedisThrottleStoreOptions {
  /** Key prefix. Default `'trowel:throttle:'`. */
  prefix?: string
  /**
   * With ioredis's offline queue off (`enableOfflineQueue: false`, as `createThrottleStore` sets
   * it, so that a request fails at once while Redis is down): how long the first commands wait
   * for the very first connection, made when the store is first used. Default 2000 ms.
   */
  firstConnectTimeout?: number
}

/** Returns `{count, pttl}` after counting one hit; opens the window on the first hit. */
const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}
`

/** Returns `{count, pttl}` or nil, read atomically. */
const GET_SCRIPT = `
local count = redis.call('GET', KEYS[1])
if not count then return nil end
return {tonumber(count), redis.call('PTTL', KEYS[1])}
`

function toEntry(reply: unknown): ThrottleEntry | null {
  if (!Array.isArray(reply)) return null
  const count = Number(reply[0])
  const ttl = Number(reply[1])
  if (!Number.isFinite(count) || count < 1) return null
  // A key without expiry (-1) cannot come from `hit`; report a one-second window rather than lie.
  return { count, resetInSeconds: ttl > 0 ? Math.max(1, Math.ceil(ttl / 1000)) : 1 }
}

/**
 * @example
 * const store = new RedisThrottleStore(new Redis(env('REDIS_URL')))
 */
export class RedisThrottleStore implements ThrottleStore {
  readonly prefix: string
  readonly #redis: Redis | Cluster
  readonly #firstConnectTimeout: number
  #connectedOnce = false

  constructor(redis: Redis | Cluster, options: RedisThrottleStoreOptions = {}) {
    this.#redis = redis
    this.prefix = options.prefix ?? 'trowel:throttle:'
    this.#firstConnectTimeout = options.firstConnectTimeout ?? 2000
    if (redis.status === 'ready') this.#connectedOnce = true
    else redis.once('ready', () => void (this.#connectedOnce = true))
  }

  /**
   * Without an offline queue a command sent before the first connection is up fails at once;
   * wait for that first connection (bounded). Later, while Redis is down, commands fail at once
   * (the caller answers 503) and ioredis keeps reconnecting by itself.
   */
  async #ready(): Promise<void> {
    const redis = this.#redis
    if (this.#connectedOnce || redis.status === 'ready') return
    if ((redis.options as { enableOfflineQueue?: boolean } | undefined)?.enableOfflineQueue !== false) return
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer)
        redis.off('ready', done)
        resolve()
      }
      const timer = setTimeout(done, this.#firstConnectTimeout)
      redis.on('ready', done)
    })
  }

  /** The Redis key a throttle key is stored under. */
  redisKey(key: string): string {
    return this.prefix + sha256Hex(key)
  }

  async hit(key: string, windowSeconds: number): Promise<ThrottleEntry> {
    assertWindow(windowSeconds)
    const windowMs = Math.max(1, Math.ceil(windowSeconds * 1000))
    await this.#ready()
    const reply = await this.#redis.eval(HIT_SCRIPT, 1, this.redisKey(key), windowMs)
    const entry = toEntry(reply)
    if (entry === null) throw new Error(`Unexpected reply from the Redis throttle script: ${JSON.stringify(reply)}`)
    return entry
  }

  async get(key: string): Promise<ThrottleEntry | null> {
    await this.#ready()
    return toEntry(await this.#redis.eval(GET_SCRIPT, 1, this.redisKey(key)))
  }

  async clear(key: string): Promise<void> {
    await this.#ready()
    await this.#redis.del(this.redisKey(key))
  }
}
