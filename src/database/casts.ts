/**
 * @module database/casts
 * Attribute casts: how a column's value is read from each driver (`fromDatabase`), normalised when
 * assigned (`fromAssignment`), written back (`toDatabase`) and serialised to JSON (`toJsonValue`).
 * SQLite has no date or boolean type: knex writes dates there as epoch milliseconds and booleans
 * as 0/1, so those (and `CURRENT_TIMESTAMP` text, read as UTC) are turned back into `Date` and
 * `boolean` here.
 */
import { isoDate } from '../support/iso-date.js'

/** The cast names a model's `static casts` may use. */
export type CastType = 'date' | 'boolean' | 'number' | 'json'

const NAIVE_DATETIME = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/

function toDate(value: unknown): unknown {
  if (value instanceof Date) return value
  if (typeof value === 'number' || typeof value === 'bigint') return new Date(Number(value))
  if (typeof value === 'string') {
    const text = value.trim()
    const parsed = /^\d+$/.test(text)
      ? new Date(Number(text))
      : NAIVE_DATETIME.test(text)
        ? new Date(`${text.replace(' ', 'T')}Z`) // SQLite CURRENT_TIMESTAMP is UTC without a zone
        : new Date(text)
    return Number.isNaN(parsed.getTime()) ? value : parsed
  }
  return value
}

function toBoolean(value: unknown): unknown {
  if (typeof value === 'boolean') return value
  if (typeof value === 'number' || typeof value === 'bigint') return Number(value) !== 0
  if (typeof value === 'string') {
    const text = value.trim().toLowerCase()
    if (['1', 'true', 't', 'yes', 'on'].includes(text)) return true
    if (['0', 'false', 'f', 'no', 'off', ''].includes(text)) return false
  }
  if (Buffer.isBuffer(value) && value.length === 1) return value[0] !== 0 // MySQL BIT(1)
  return value
}

function toNumber(value: unknown): unknown {
  if (typeof value === 'number') return value
  if (typeof value === 'string' || typeof value === 'bigint') {
    const number = Number(value)
    return Number.isNaN(number) ? value : number
  }
  return value
}

/** A column value as the driver returned it → the attribute value the model exposes. */
export function fromDatabase(type: CastType | undefined, value: unknown): unknown {
  if (value === null || value === undefined || type === undefined) return value
  switch (type) {
    case 'date':
      return toDate(value)
    case 'boolean':
      return toBoolean(value)
    case 'number':
      return toNumber(value)
    case 'json':
      if (typeof value !== 'string') return value // pg parses json/jsonb itself
      try {
        return JSON.parse(value) as unknown
      } catch {
        return value
      }
  }
}

/** A value assigned in code (`user.active = 1`) → the attribute value; JSON values stay as given. */
export function fromAssignment(type: CastType | undefined, value: unknown): unknown {
  return type === 'json' ? value : fromDatabase(type, value)
}

/** An attribute value → what is bound in SQL (JSON is stringified for every driver). */
export function toDatabase(type: CastType | undefined, value: unknown): unknown {
  if (type === 'json') return value === null || value === undefined ? value : JSON.stringify(value)
  return fromDatabase(type, value)
}

/** An attribute value → its JSON form (dates as ISO strings, bigints as strings). */
export function toJsonValue(value: unknown): unknown {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : isoDate(value)
  if (typeof value === 'bigint') return value.toString()
  return value
}

/** Equality used for dirty tracking: dates by instant, objects by their JSON. */
export function sameValue(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime()
  if (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null) {
    try {
      return JSON.stringify(a) === JSON.stringify(b)
    } catch {
      return false
    }
  }
  return false
}
