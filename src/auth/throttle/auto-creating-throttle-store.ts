/**
 * @module auth/throttle/auto-creating-throttle-store
 * A database throttle store that creates its table on first use: apps do not ship its migration.
 */
import type { Knex } from 'knex'
import type { ThrottleStore } from './throttle-store.js'
import { THROTTLE_TABLE, throttleTableMigration } from './database-throttle-store.js'

export class AutoCreatingThrottleStore implements ThrottleStore {
  #ready?: Promise<void>

  constructor(private readonly inner: ThrottleStore, private readonly knex: () => Knex) {}

  #ensure(): Promise<void> {
    this.#ready ??= (async () => {
      if (await this.knex().schema.hasTable(THROTTLE_TABLE)) return
      try {
        await throttleTableMigration(this.knex().schema)
      } catch (error) {
        // Another process may have created it meanwhile.
        if (!(await this.knex().schema.hasTable(THROTTLE_TABLE))) throw error
      }
    })().catch((error) => {
      this.#ready = undefined
      throw error
    })
    return this.#ready
  }

  async hit(key: string, windowSeconds: number, limit?: number) {
    await this.#ensure()
    return this.inner.hit(key, windowSeconds, limit)
  }

  async get(key: string) {
    await this.#ensure()
    return this.inner.get(key)
  }

  async clear(key: string) {
    await this.#ensure()
    return this.inner.clear(key)
  }
}
