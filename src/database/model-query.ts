/**
 * @module database/model-query
 * `ModelQuery`: the small chainable query that `Model.where()` returns. It builds on a knex query
 * of the model's table and hands back hydrated models. A `where` whose value is `undefined` or
 * `null` (or an array or object) makes the whole query match nothing: `first()` is `null`,
 * `get()` is `[]`, `count()`, `update()` and `delete()` are 0, and no SQL is sent. Use
 * `whereNull()` to look for NULL on purpose.
 */
import type { Knex } from 'knex'
import type { DatabaseDriver } from './database-manager.js'
import { translateDatabaseError } from './errors.js'
import { NO_MATCH, isLookupTypeMismatch, lookupValue } from './lookup-value.js'
import type { Model } from './model.js'

/** What `ModelQuery` needs from a model class. */
export interface QueryModel<M> {
  hydrate(row: Record<string, unknown>): M
  getTable(): string
  toDatabaseValues(values: Record<string, unknown>): Record<string, unknown>
  usesTimestamps(): boolean
}

export type WhereOperator = '=' | '!=' | '<>' | '<' | '<=' | '>' | '>=' | 'like' | 'not like' | 'ilike'

export class ModelQuery<M extends Model> {
  private noMatch = false

  constructor(
    private readonly model: QueryModel<M>,
    private readonly builder: Knex.QueryBuilder,
    private readonly driver: DatabaseDriver,
  ) {}

  /** `where(column, value)` or `where(column, operator, value)`; chains with AND. */
  where(column: string, value: unknown): this
  where(column: string, operator: WhereOperator, value: unknown): this
  where(column: string, ...rest: unknown[]): this {
    const [operator, value] = rest.length >= 2 ? [String(rest[0]), rest[1]] : ['=', rest[0]]
    const bound = lookupValue(value, this.driver)
    if (bound === NO_MATCH) this.matchNothing()
    else {
      this.builder.where(column, operator, bound)
      // MySQL would match a numeric column by the string's numeric prefix ('1abc' = 1): require
      // the column's own spelling too (see `coercedMatch`). CONCAT keeps a text column's collation.
      if (this.driver === 'mysql' && operator === '=' && typeof bound === 'string') this.builder.whereRaw('CONCAT(??) = ?', [column, bound])
    }
    return this
  }

  /** Rows whose `column` is one of `values` (values that cannot match are dropped). */
  whereIn(column: string, values: readonly unknown[]): this {
    const bound = values.map((value) => lookupValue(value, this.driver)).filter((value) => value !== NO_MATCH)
    if (bound.length === 0) this.matchNothing()
    else this.builder.whereIn(column, bound as Knex.Value[])
    return this
  }

  /** Rows whose `column` IS NULL: the explicit way to match NULL. */
  whereNull(column: string): this {
    this.builder.whereNull(column)
    return this
  }

  whereNotNull(column: string): this {
    this.builder.whereNotNull(column)
    return this
  }

  orderBy(column: string, direction: 'asc' | 'desc' = 'asc'): this {
    this.builder.orderBy(column, direction)
    return this
  }

  limit(count: number): this {
    this.builder.limit(count)
    return this
  }

  offset(count: number): this {
    this.builder.offset(count)
    return this
  }

  /** The first matching model, or `null`. */
  async first(): Promise<M | null> {
    if (this.noMatch) return null
    const row = await this.read(() => this.builder.clone().first() as Promise<Record<string, unknown> | undefined>, undefined)
    return row ? this.model.hydrate(row) : null
  }

  /** Every matching model. */
  async get(): Promise<M[]> {
    if (this.noMatch) return []
    const rows = await this.read(() => this.builder.clone().select('*') as Promise<Record<string, unknown>[]>, [])
    return rows.map((row) => this.model.hydrate(row))
  }

  /** The number of matching rows (`limit`/`offset`/`orderBy` are ignored). */
  async count(): Promise<number> {
    if (this.noMatch) return 0
    const rows = await this.read(
      () => this.builder.clone().clear('select').clear('order').clear('limit').clear('offset').count({ count: '*' }) as Promise<Record<string, unknown>[]>,
      [],
    )
    return Number(rows[0]?.count ?? 0)
  }

  /**
   * Updates the matching rows with `values` as given (no fillable filter: this is code, not
   * user input), cast for the database; sets `updated_at` when the model has timestamps.
   * Returns the number of rows changed.
   */
  async update(values: Record<string, unknown>): Promise<number> {
    if (this.noMatch) return 0
    const changes = { ...values }
    if (this.model.usesTimestamps() && !('updated_at' in changes)) changes.updated_at = new Date()
    try {
      return Number(await this.builder.clone().update(this.model.toDatabaseValues(changes)))
    } catch (error) {
      throw translateDatabaseError(error, { table: this.model.getTable() })
    }
  }

  /** Deletes the matching rows; returns how many. */
  async delete(): Promise<number> {
    if (this.noMatch) return 0
    return Number(await this.read(() => this.builder.clone().delete() as Promise<number>, 0))
  }

  /** The underlying knex builder, for anything this class does not cover. */
  toKnex(): Knex.QueryBuilder {
    return this.builder
  }

  /** Also puts `1 = 0` on the builder, so `toKnex()` can never widen the query to every row. */
  private matchNothing(): void {
    this.noMatch = true
    this.builder.whereRaw('1 = 0')
  }

  private async read<R>(run: () => Promise<R>, none: R): Promise<R> {
    try {
      return await run()
    } catch (error) {
      if (isLookupTypeMismatch(error)) return none
      throw translateDatabaseError(error, { table: this.model.getTable() })
    }
  }
}
