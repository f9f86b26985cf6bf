/**
 * @module database/model
 * `Model`: a small active record over knex. A model class names its table and rules as statics;
 * an instance holds its row in a plain object that reads and writes as properties (`user.email`,
 * `user.email = 'x'`), tracks what changed, and saves only that.
 *
 * ```ts
 * export class User extends Authenticates(Model) {
 *   static table = 'users'
 *   static fillable = ['name', 'email', 'password']
 *   static hidden = ['password', 'remember_token']
 *   declare name: string        // optional: typed columns (use `declare`, never an initializer)
 * }
 * const user = await User.create({ name: 'Ada', email: 'ada@example.com', password: hash })
 * await User.where('email', email).first()
 * ```
 *
 * The settings a model may declare (all optional, none declared on `Model` itself so that a
 * subclass writes `static table = 'users'` without `override` under `noImplicitOverride`):
 * - `static table`: the table (default: the class name in snake_case, plural: `User` → `users`).
 * - `static primaryKey = 'id'`
 * - `static fillable: string[]`: the only keys `create()`, `fill()`, `update()` and
 *   `new Model(attrs)` take; every other key is ignored silently (mass assignment). Framework
 *   code that must set other columns uses `forceFill()`.
 * - `static hidden: string[]`: never serialised (`serialize()`, `toJSON()`, JSON responses).
 * - `static extraHidden: string[]`: for mixins. Class fields cannot extend a parent's array
 *   (`static hidden = [...super.hidden, 'api_token']` is not allowed), and a mixin must not
 *   replace the model's own `hidden`. So every class in the chain may declare `extraHidden`, and
 *   `hiddenFields()` returns `hidden` plus every `extraHidden` up the chain. A mixin can also
 *   override `static hiddenFields()` and call `super.hiddenFields()`.
 * - `static casts: Record<string, 'date' | 'boolean' | 'number' | 'json'>`
 * - `static timestamps = true`: `created_at` and `updated_at` are set on save (whole seconds,
 *   so every database stores the same value) and cast as dates.
 * - `static connection`: a connection name of `config/database.ts` (default: the default one).
 *
 * Lookups take user input safely: `find`, `findBy` and `where` with `undefined` or `null` (or an
 * array or object) match nothing, never the rows whose column is NULL. Database errors are
 * translated: unique violations → `UniqueConstraintError` (409), lost connections →
 * `DatabaseUnavailableError` (503).
 *
 * An attribute whose name is also a member of the class (`save`, `delete`, `exists`…) is reached
 * with `getAttribute()` / `setAttribute()`. Instance state that is not a column must be declared
 * as an initialised class field; any other assigned property is taken for a column.
 */
import { inspect, type InspectOptions } from 'node:util'
import type { Knex } from 'knex'
import { ATTRIBUTE_ACCESS } from './attribute-access.js'
import { type CastType, fromAssignment, fromDatabase, sameValue, toDatabase, toJsonValue } from './casts.js'
import { getDatabase, type DatabaseManager } from './database-manager.js'
import type { PreparedLookup } from './prepared-lookup.js'
import { ModelNotFoundError } from './errors.js'
import { driverOf } from './lookup-value.js'
import { deleteModel, type PersistOptions, refreshModel, saveModel } from './model-persistence.js'
import { ModelQuery, type QueryModel, type WhereOperator } from './model-query.js'
import { extraHiddenOf, modelSettings as settings, tableNameFor, type ModelSettings } from './model-settings.js'

export type { ModelSettings } from './model-settings.js'
export type { PersistOptions } from './model-persistence.js'

export type Attributes = Record<string, unknown>

/** `getCasts()` per model class, with the settings it was made from. */
/** Per class: `hiddenFields()` as last computed, and the declarations it came from. */
const HIDDEN = new WeakMap<object, { hidden: ModelSettings['hidden']; extras: unknown[]; fields: readonly string[] }>()

/** Whether the `extraHidden` arrays declared up `model`'s class chain are still `extras`, in order. */
function sameExtraHidden(model: object, extras: readonly unknown[]): boolean {
  let i = 0
  for (let current: object | null = model; current && current !== Function.prototype; current = Object.getPrototypeOf(current) as object | null) {
    if (Object.hasOwn(current, 'extraHidden') && settings(current).extraHidden !== extras[i++]) return false
  }
  return i === extras.length
}

/** The `extraHidden` arrays declared up `model`'s class chain. */
function extraHiddenArrays(model: object): unknown[] {
  const arrays: unknown[] = []
  for (let current: object | null = model; current && current !== Function.prototype; current = Object.getPrototypeOf(current) as object | null) {
    if (Object.hasOwn(current, 'extraHidden')) arrays.push(settings(current).extraHidden)
  }
  return arrays
}
const CASTS = new WeakMap<object, { declared: ModelSettings['casts']; timestamps: boolean; casts: Readonly<Record<string, CastType>> }>()

function hasKeys(value: object): boolean {
  for (const key in value) if (Object.hasOwn(value, key)) return true
  return false
}

export class Model {
  /** Columns read and written as properties (`user.email`). Declare typed ones with `declare`. */
  [column: string]: any

  /** The current attribute values (already cast). Prefer `getAttribute()`/`getAttributes()`. */
  declare $attributes: Attributes
  /** The values as last loaded or saved, for dirty tracking. */
  declare $original: Attributes
  /** Whether the model is stored (loaded, or saved once). */
  declare $exists: boolean

  /** A new, unsaved model filled with the fillable keys of `attributes`. */
  constructor(attributes: Attributes = {}) {
    // Plain stores (a defineProperty each cost more than the rest of a hydrated model's making);
    // the proxy hides them, so `Object.keys(user)` and `{ ...user }` list the columns only.
    this.$attributes = {}
    this.$original = {}
    this.$exists = false
    if (hasKeys(attributes)) this.fill(attributes)
    // Returning the proxy makes it `this` for subclass constructors and every method call.
    return new Proxy(this, ATTRIBUTE_ACCESS)
  }

  // ---- class settings -------------------------------------------------------------------

  /** The table: `static table`, else the class name in snake_case plural (`User` → `users`). */
  static getTable(): string {
    const table = settings(this).table
    return typeof table === 'string' && table !== '' ? table : tableNameFor(this.name)
  }

  static getPrimaryKey(): string {
    return settings(this).primaryKey ?? 'id'
  }

  static getFillable(): readonly string[] {
    return settings(this).fillable ?? []
  }

  /** `hidden` plus every `extraHidden` declared up the class chain (mixins add theirs there). */
  static hiddenFields(): readonly string[] {
    // Read on every serialisation: computed once per class while `hidden` and every `extraHidden`
    // up the chain stay the same arrays (assigning a new array is seen at once; declare them as
    // constants, do not push into them). The answer is frozen: it is shared.
    const hidden = settings(this).hidden
    const known = HIDDEN.get(this)
    if (known && known.hidden === hidden && sameExtraHidden(this, known.extras)) return known.fields
    const fields = Object.freeze([...new Set([...(hidden ?? []), ...extraHiddenOf(this)])])
    HIDDEN.set(this, { hidden, extras: extraHiddenArrays(this), fields })
    return fields
  }

  /** `casts`, plus `created_at`/`updated_at` as dates when the model has timestamps. */
  static getCasts(): Readonly<Record<string, CastType>> {
    // Read for every attribute of every row: the merged object is made once per (casts, timestamps).
    const declared = settings(this).casts
    const timestamps = this.usesTimestamps()
    const known = CASTS.get(this)
    if (known && known.declared === declared && known.timestamps === timestamps) return known.casts
    const own = declared ?? {}
    const casts: Readonly<Record<string, CastType>> = timestamps ? { created_at: 'date', updated_at: 'date', ...own } : own
    CASTS.set(this, { declared, timestamps, casts })
    return casts
  }

  static usesTimestamps(): boolean {
    return settings(this).timestamps ?? true
  }

  /**
   * The manager models read and write through: the process's default (`setDatabase`, done by the
   * database provider at boot), as Eloquent's connection resolver is. Everything a model does for
   * itself (its queries, `user.createToken()`) goes through here; the framework's services use
   * their app's manager (`app.make('db.manager')`).
   */
  static database(): DatabaseManager {
    return getDatabase()
  }

  /** The kept single-row statements of the model's connection. */
  static lookups(): PreparedLookup {
    return this.database().prepared(settings(this).connection)
  }

  /** The knex instance of the model's connection (or `client` when given). */
  static getKnex(client?: Knex | Knex.Transaction): Knex {
    return client ?? this.database().connection(settings(this).connection)
  }

  // ---- queries --------------------------------------------------------------------------

  /** The plain knex query builder on the model's table (rows, not models). */
  static query(client?: Knex | Knex.Transaction): Knex.QueryBuilder {
    return this.getKnex(client)(this.getTable())
  }

  /** A `ModelQuery` on the model's table, optionally inside a transaction. */
  static newQuery<T extends typeof Model>(this: T, client?: Knex | Knex.Transaction): ModelQuery<InstanceType<T>> {
    const knex = this.getKnex(client)
    return new ModelQuery<InstanceType<T>>(this as unknown as QueryModel<InstanceType<T>>, knex(this.getTable()), driverOf(knex))
  }

  /** `where(column, value)` or `where(column, operator, value)`: a chainable `ModelQuery`. */
  static where<T extends typeof Model>(this: T, column: string, value: unknown): ModelQuery<InstanceType<T>>
  static where<T extends typeof Model>(this: T, column: string, operator: WhereOperator, value: unknown): ModelQuery<InstanceType<T>>
  static where<T extends typeof Model>(this: T, column: string, ...rest: unknown[]): ModelQuery<InstanceType<T>> {
    const query = this.newQuery()
    return rest.length >= 2 ? query.where(column, rest[0] as WhereOperator, rest[1]) : query.where(column, rest[0])
  }

  /** The model with this primary key, or `null` (also for `undefined`/`null` ids). */
  static find<T extends typeof Model>(this: T, id: unknown, options: PersistOptions = {}): Promise<InstanceType<T> | null> {
    // Not `async`: returning findBy's promise directly saves two microtask turns per lookup.
    return this.findBy(this.getPrimaryKey(), id, options)
  }

  /** Like `find`, but throws `ModelNotFoundError` (404 `E_NOT_FOUND`) when there is none. */
  static async findOrFail<T extends typeof Model>(this: T, id: unknown, options: PersistOptions = {}): Promise<InstanceType<T>> {
    const model = await this.findBy(this.getPrimaryKey(), id, options)
    if (!model) throw new ModelNotFoundError(this.name)
    return model
  }

  /**
   * The first model whose `column` equals `value`, or `null`; `undefined`/`null` values return
   * `null` without a query. Uses the connection's prepared-statement fast path.
   */
  static async findBy<T extends typeof Model>(this: T, column: string, value: unknown, options: PersistOptions = {}): Promise<InstanceType<T> | null> {
    if (value === undefined || value === null) return null
    if (options.client) return this.newQuery(options.client).where(column, value).first()
    const row = await this.lookups().findBy(this.getTable(), column, value)
    return row ? this.hydrate(row) : null
  }

  /** Every row of the table, by primary key. */
  static async all<T extends typeof Model>(this: T, options: PersistOptions = {}): Promise<InstanceType<T>[]> {
    return this.newQuery(options.client).orderBy(this.getPrimaryKey()).get()
  }

  /** Creates and saves a model from the fillable keys of `attributes` (others are ignored). */
  static async create<T extends typeof Model>(this: T, attributes: Attributes, options: PersistOptions = {}): Promise<InstanceType<T>> {
    const model = new this(attributes) as InstanceType<T>
    await model.save(options)
    return model
  }

  /** A stored model from a database row (casts applied, nothing dirty). */
  static hydrate<T extends typeof Model>(this: T, row: Attributes): InstanceType<T> {
    const model = new this() as InstanceType<T>
    const attributes = this.attributesFromRow(row)
    // After the constructor: what a subclass constructor set gives way to the stored row. The
    // proxy stores these three straight on the instance (no `setAttribute` per field).
    model.$attributes = attributes
    model.$original = { ...attributes }
    model.$exists = true
    return model
  }

  /**
   * A row's values with the model's casts applied. The row is copied whole (V8 clones an object
   * of plain properties in one step) and only the cast columns are rewritten in the copy.
   */
  static attributesFromRow(row: Attributes): Attributes {
    const casts = this.getCasts()
    const attributes: Attributes = { ...row }
    for (const key in casts) {
      if (Object.hasOwn(casts, key) && Object.hasOwn(attributes, key)) attributes[key] = fromDatabase(casts[key], attributes[key])
    }
    return attributes
  }

  /** Attribute values → the values bound in SQL (casts reversed, `undefined` dropped). */
  static toDatabaseValues(values: Attributes): Attributes {
    const casts = this.getCasts()
    const out: Attributes = {}
    for (const [key, value] of Object.entries(values)) if (value !== undefined) out[key] = toDatabase(casts[key], value)
    return out
  }

  // ---- attributes -----------------------------------------------------------------------

  getAttribute<V = unknown>(key: string): V {
    return this.$attributes[key] as V
  }

  /** Sets one attribute (any column), applying its cast (`'1'` → `true` for a boolean). */
  setAttribute(key: string, value: unknown): this {
    this.$attributes[key] = fromAssignment(this.modelClass().getCasts()[key], value)
    return this
  }

  /** A copy of every attribute, hidden ones included. */
  getAttributes(): Attributes {
    return { ...this.$attributes }
  }

  /** Sets the fillable keys of `attributes`; every other key is ignored. */
  fill(attributes: Attributes): this {
    const fillable = new Set(this.modelClass().getFillable())
    for (const [key, value] of Object.entries(attributes)) if (fillable.has(key)) this.setAttribute(key, value)
    return this
  }

  /** Sets any keys, fillable or not: for framework code, never for request input. */
  forceFill(attributes: Attributes): this {
    for (const [key, value] of Object.entries(attributes)) this.setAttribute(key, value)
    return this
  }

  getKey(): unknown {
    return this.$attributes[this.modelClass().getPrimaryKey()]
  }

  /** Whether `key` (or any attribute) differs from the stored value. */
  isDirty(key?: string): boolean {
    const dirty = this.getDirty()
    return key === undefined ? Object.keys(dirty).length > 0 : Object.hasOwn(dirty, key)
  }

  /** The attributes that differ from the stored values. */
  getDirty(): Attributes {
    const dirty: Attributes = {}
    for (const [key, value] of Object.entries(this.$attributes)) {
      if (!Object.hasOwn(this.$original, key) || !sameValue(value, this.$original[key])) dirty[key] = value
    }
    return dirty
  }

  /** Marks the current attributes as the stored ones. */
  syncOriginal(): this {
    this.$original = { ...this.$attributes }
    return this
  }

  // ---- persistence ----------------------------------------------------------------------

  /**
   * Inserts the model, or updates its changed attributes; sets `created_at`/`updated_at` when
   * the model has timestamps. After an insert the new primary key is read back
   * (`RETURNING` on PostgreSQL, the insert id on SQLite and MySQL). Returns the model.
   */
  save(options: PersistOptions = {}): Promise<this> {
    return saveModel(this, options)
  }

  /** Fills the fillable keys of `attributes` and saves. */
  async update(attributes: Attributes, options: PersistOptions = {}): Promise<this> {
    return this.fill(attributes).save(options)
  }

  /** Deletes the row; returns whether one was deleted. */
  delete(options: PersistOptions = {}): Promise<boolean> {
    return deleteModel(this, options)
  }

  /** Reloads every attribute from the database; throws `ModelNotFoundError` when the row is gone. */
  refresh(options: PersistOptions = {}): Promise<this> {
    return refreshModel(this, options)
  }

  // ---- serialisation --------------------------------------------------------------------

  /** The attributes without the hidden ones, dates as ISO strings: what JSON responses show. */
  serialize(): Attributes {
    const hidden = this.modelClass().hiddenFields()
    const attributes = this.$attributes
    const out: Attributes = {}
    // A handful of hidden names: a linear scan costs less than building a Set per call.
    for (const key in attributes) if (Object.hasOwn(attributes, key) && !hidden.includes(key)) out[key] = toJsonValue(attributes[key])
    return out
  }

  toJSON(): Attributes {
    return this.serialize()
  }

  /** The model's class, for its statics (`getTable()`, `getCasts()`…). */
  modelClass(): typeof Model {
    return this.constructor as typeof Model
  }
}

// `console.log(user)` shows `User { id: 1, … }`, hidden fields left out as in JSON. Defined
// outside the class so that mixin declarations never need to name the symbol.
Object.defineProperty(Model.prototype, inspect.custom, {
  value(this: Model, _depth: number, options: InspectOptions): string {
    return `${this.constructor.name} ${inspect(this.serialize(), options)}`
  },
})

/**
 * The type a mixin takes and extends:
 * ```ts
 * export function Authenticates<T extends ModelClass>(Base: T) {
 *   return class extends Base {
 *     static authColumn = 'email'
 *     static extraHidden = ['remember_token']
 *     static async findForAuth(value: unknown) { return this.findBy(this.authColumn, value) }
 *   }
 * }
 * ```
 * It is a plain (not `abstract`) construct signature: with `abstract new`, TypeScript would force
 * every mixin's returned class to be declared `abstract` as well (TS2797).
 */
export type ModelClass<M extends Model = Model> = (new (...args: any[]) => M) & Omit<typeof Model, 'prototype'>
