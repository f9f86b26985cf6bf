/**
 * @module database/model-persistence
 * Writing one model instance to its table and reading it back: `saveModel` (insert, or update of
 * the dirty attributes, with timestamps), `deleteModel` and `refreshModel`, behind
 * `Model#save()`, `#delete()` and `#refresh()`. Driver errors come out translated
 * (`UniqueConstraintError`, `DatabaseUnavailableError`).
 */
import type { Knex } from 'knex'
import { ModelNotFoundError, translateDatabaseError } from './errors.js'
import { driverOf } from './lookup-value.js'
import type { Attributes, Model } from './model.js'

/** Run a model operation on a given knex instance or transaction instead of the model's connection. */
export interface PersistOptions {
  client?: Knex | Knex.Transaction
}

/** Whole seconds: what MySQL's DATETIME keeps, so a saved and a reloaded model agree everywhere. */
function now(): Date {
  return new Date(Math.floor(Date.now() / 1000) * 1000)
}

/** The primary key the row is stored under, even when the attribute was changed since. */
function storedKey(model: Model, primaryKey: string): unknown {
  return Object.hasOwn(model.$original, primaryKey) ? model.$original[primaryKey] : model.getKey()
}

/**
 * Inserts the model, or updates its changed attributes; sets `created_at`/`updated_at` when the
 * model has timestamps. After an insert the new primary key is read back (`RETURNING` on
 * PostgreSQL, the insert id on SQLite and MySQL).
 */
export async function saveModel<M extends Model>(model: M, options: PersistOptions = {}): Promise<M> {
  const modelClass = model.modelClass()
  const knex = modelClass.getKnex(options.client)
  const table = modelClass.getTable()
  const primaryKey = modelClass.getPrimaryKey()
  try {
    if (model.$exists) {
      const dirty = model.getDirty()
      if (Object.keys(dirty).length === 0) return model
      if (modelClass.usesTimestamps() && !Object.hasOwn(dirty, 'updated_at')) dirty.updated_at = model.$attributes.updated_at = now()
      const key = storedKey(model, primaryKey)
      await knex(table).where(primaryKey, key as Knex.Value).update(modelClass.toDatabaseValues(dirty))
    } else {
      if (modelClass.usesTimestamps()) {
        const stamp = now()
        if (model.$attributes.created_at == null) model.$attributes.created_at = stamp
        if (model.$attributes.updated_at == null) model.$attributes.updated_at = stamp
      }
      const values = modelClass.toDatabaseValues(model.$attributes)
      let id: unknown
      if (driverOf(knex) === 'postgres') {
        const rows = (await knex(table).insert(values).returning(primaryKey)) as Attributes[]
        id = rows[0]?.[primaryKey]
      } else {
        const result = (await knex(table).insert(values)) as unknown[]
        id = result[0]
      }
      if (model.$attributes[primaryKey] == null && id != null && id !== 0) model.$attributes[primaryKey] = id
      model.$exists = true
    }
  } catch (error) {
    throw translateDatabaseError(error, { table })
  }
  model.syncOriginal()
  return model
}

/** Deletes the model's row; returns whether one was deleted. */
export async function deleteModel(model: Model, options: PersistOptions = {}): Promise<boolean> {
  if (!model.$exists) return false
  const modelClass = model.modelClass()
  const primaryKey = modelClass.getPrimaryKey()
  const key = storedKey(model, primaryKey)
  try {
    const count = await modelClass.getKnex(options.client)(modelClass.getTable()).where(primaryKey, key as Knex.Value).delete()
    model.$exists = false
    return Number(count) > 0
  } catch (error) {
    throw translateDatabaseError(error, { table: modelClass.getTable() })
  }
}

/** Reloads every attribute from the database; throws `ModelNotFoundError` when the row is gone. */
export async function refreshModel<M extends Model>(model: M, options: PersistOptions = {}): Promise<M> {
  const modelClass = model.modelClass()
  let row: Attributes | undefined
  try {
    row = (await modelClass.query(options.client).where(modelClass.getPrimaryKey(), model.getKey() as Knex.Value).first()) as Attributes | undefined
  } catch (error) {
    throw translateDatabaseError(error, { table: modelClass.getTable() })
  }
  if (!row) throw new ModelNotFoundError(modelClass.name)
  model.$attributes = modelClass.attributesFromRow(row)
  model.$exists = true
  return model.syncOriginal()
}
