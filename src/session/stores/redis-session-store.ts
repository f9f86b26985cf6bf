/**
 * @module session/stores/redis-session-store
 * The `redis` driver: each session is the key `trowel:session:<id>` holding JSON, with a TTL equal
 * to the idle lifetime, so any process (`--workers N`, several machines) can serve any request.
 * An unreachable Redis answers 503 `E_UNAVAILABLE` instead of hanging the request.
 */
import { createRequire } from 'node:module'
import type { Redis } from 'ioredis'
import { ServiceUnavailableError } from '../../http/errors.js'
import { decodeSessionData, encodeSessionData, type SessionData, type SessionStore } from '../session-store.js'

export const REDIS_SESSION_PREFIX = 'trowel:session:'

// ioredis is loaded when a store creates its own client, not when this module is imported.
const requireModule = createRequire(import.meta.url)

export interface RedisSessionStoreOptions {
  /** Key prefix; default `trowel:session:`. */
  prefix?: string
}

export class RedisSessionStore implements SessionStore {
  readonly client: Redis
  readonly #prefix: string
  readonly #ownsClient: boolean

  /** Takes a `redis://` URL (a client is created and owned) or an existing ioredis client. */
  constructor(connection: string | Redis, options: RedisSessionStoreOptions = {}) {
    this.#ownsClient = typeof connection === 'string'
    this.client =
      typeof connection === 'string'
        ? new (requireModule('ioredis') as typeof import('ioredis')).Redis(connection, { lazyConnect: true, maxRetriesPerRequest: 2, connectTimeout: 5000, enableOfflineQueue: true })
        : connection
    // Connection failures surface on the command that needed the connection (503), not as an
    // "Unhandled error event" on the client.
    if (this.#ownsClient) this.client.on('error', () => {})
    this.#prefix = options.prefix ?? REDIS_SESSION_PREFIX
  }

  key(id: string): string {
    return this.#prefix + id
  }

  async read(id: string): Promise<SessionData | null> {
    return decodeSessionData(await this.#run(() => this.client.get(this.key(id))))
  }

  async write(id: string, data: SessionData, ttlSeconds: number): Promise<void> {
    await this.#run(() => this.client.set(this.key(id), encodeSessionData(data), 'EX', Math.max(1, Math.ceil(ttlSeconds))))
  }

  async destroy(id: string): Promise<void> {
    await this.#run(() => this.client.del(this.key(id)))
  }

  /** Closes the connection when this store created it. */
  async close(): Promise<void> {
    if (this.#ownsClient && this.client.status !== 'end') {
      await this.client.quit().catch(() => this.client.disconnect())
    }
  }

  async #run<T>(command: () => Promise<T>): Promise<T> {
    try {
      return await command()
    } catch (error) {
      throw new ServiceUnavailableError(undefined, { cause: error })
    }
  }
}
