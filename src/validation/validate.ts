/**
 * @module validation/validate
 * `validate(data, rules, options)`: checks input against Laravel-style rules and returns only the
 * validated keys, or throws `ValidationError` (422 `E_VALIDATION`) with every field's messages.
 *
 * Semantics:
 * - Every field has a type: `numeric`/`number`, `integer`, `boolean` or `array` when one of those
 *   rules is listed, else string. A value of another type (an array or object where a string is
 *   expected, a number given to `email`) fails with a message; input never makes `validate` throw
 *   anything but `ValidationError`.
 * - Empty values (absent, `null`, `''`, whitespace only, `[]`) fail `required` and skip every other
 *   rule. An empty but present optional field is returned as is (`null` when `nullable`).
 * - The first failing rule of a field ends that field's checks (one message per field). Database
 *   rules (`unique`, `exists`) run last and only when the others passed.
 * - Returned values: `email` trimmed; `numeric`/`integer` as numbers; `boolean` as booleans.
 */
import type { Knex } from 'knex'
import * as v from 'valibot'
import { ValidationError } from '../http/errors.js'
import { FrameworkError } from '../foundation/framework-error.js'
import { db as defaultConnection, hasDatabase } from '../database/database-manager.js'
import { whereCaseless, whereEmail } from '../database/where-caseless.js'
import { formatMessage } from './messages.js'
import { parseRules, type BuiltinRule, type ParsedRule, type RuleSpec } from './rule-spec.js'

export interface ValidateOptions {
  /** The connection `unique` and `exists` query. */
  db?: Knex
  /** Message overrides: `{ 'email.unique': 'That address is taken.', required: 'Fill in :attribute.' }`. */
  messages?: Record<string, string>
  /** Display names: `{ email: 'e-mail address' }`. */
  attributes?: Record<string, string>
  /**
   * Where a failed web form goes back to when the request has no usable Referer (a path on this
   * site). Default: the path posted to when it answers GET, else `/`.
   */
  back?: string
}

export type Rules = Record<string, string | readonly RuleSpec[]>

type FieldType = 'string' | 'numeric' | 'integer' | 'boolean' | 'array'

const EMAIL_MAX_LENGTH = 254
const EMAIL_SCHEMA = v.pipe(v.string(), v.maxLength(EMAIL_MAX_LENGTH), v.email())
const NUMERIC_TEXT = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/
const INTEGER_TEXT = /^[+-]?\d+$/
const TRUE_VALUES = new Set<unknown>([true, 1, '1', 'true', 'on', 'yes'])
const FALSE_VALUES = new Set<unknown>([false, 0, '0', 'false', 'off', 'no'])

class RuleFailure {
  constructor(
    readonly rule: string,
    readonly params: Record<string, string> = {},
    readonly message?: string,
  ) {}
}

export async function validate<T extends Record<string, unknown> = Record<string, unknown>>(
  data: Record<string, unknown>,
  rules: Rules,
  options: ValidateOptions = {},
): Promise<T> {
  const input: Record<string, unknown> = typeof data === 'object' && data !== null && !Array.isArray(data) ? data : {}
  const parsed = Object.entries(rules).map(([field, spec]) => [field, parseRules(field, spec)] as const)
  const errors: Record<string, string[]> = {}
  const output: Record<string, unknown> = {}

  for (const [field, fieldRules] of parsed) {
    const result = await validateField(field, fieldRules, input, options)
    if (result instanceof RuleFailure) {
      const message =
        result.message ?? formatMessage(field, result.rule, result.params, options.messages, options.attributes)
      errors[field] = [message]
    } else if (result.present) {
      output[field] = result.value
    }
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors, undefined, { back: options.back })
  return output as T
}

async function validateField(
  field: string,
  rules: ParsedRule[],
  data: Record<string, unknown>,
  options: ValidateOptions,
): Promise<RuleFailure | { present: boolean; value: unknown }> {
  const builtins = new Set(rules.flatMap((r) => (r.kind === 'builtin' ? [r.name] : [])))
  const present = Object.hasOwn(data, field)
  const raw = present ? data[field] : undefined

  if (isEmpty(raw)) {
    if (builtins.has('required')) return new RuleFailure('required')
    return { present, value: builtins.has('nullable') ? null : raw }
  }

  const type = fieldType(builtins)
  const coerced = coerce(raw, type)
  if (coerced instanceof RuleFailure) return coerced
  let value = coerced

  const deferred: Extract<ParsedRule, { kind: 'builtin' }>[] = []
  for (const rule of rules) {
    if (rule.kind === 'custom') {
      const message = await rule.fn(value, { field, data, db: options.db })
      if (typeof message === 'string' && message !== '') return new RuleFailure('custom', {}, message)
      continue
    }
    if (rule.kind === 'schema') {
      const result = await v.safeParseAsync(rule.schema, value)
      if (!result.success) return new RuleFailure('invalid', {}, result.issues[0]?.message)
      value = result.output
      continue
    }
    if (rule.name === 'unique' || rule.name === 'exists') {
      deferred.push(rule)
      continue
    }
    const outcome = checkBuiltin(rule.name, rule.args, value, type, field, data)
    if (outcome instanceof RuleFailure) return outcome
    value = outcome
  }
  for (const rule of deferred) {
    const failure = await checkDatabase(rule.name as 'unique' | 'exists', rule.args, value, field, options.db, builtins.has('email'))
    if (failure) return failure
  }
  return { present: true, value }
}

function fieldType(rules: Set<BuiltinRule>): FieldType {
  if (rules.has('integer')) return 'integer'
  if (rules.has('numeric') || rules.has('number')) return 'numeric'
  if (rules.has('boolean')) return 'boolean'
  if (rules.has('array')) return 'array'
  return 'string'
}

function isEmpty(value: unknown): boolean {
  if (value === undefined || value === null) return true
  if (typeof value === 'string') return value.trim() === ''
  if (Array.isArray(value)) return value.length === 0
  return false
}

/** The value in its field's type, or the type rule's failure. */
function coerce(value: unknown, type: FieldType): unknown {
  switch (type) {
    case 'string':
      return typeof value === 'string' ? value : new RuleFailure('string')
    case 'numeric': {
      const n = toNumber(value, NUMERIC_TEXT)
      return n === null ? new RuleFailure('numeric') : n
    }
    case 'integer': {
      const n = toNumber(value, INTEGER_TEXT)
      return n === null || !Number.isSafeInteger(n) ? new RuleFailure('integer') : n
    }
    case 'boolean':
      if (TRUE_VALUES.has(value)) return true
      if (FALSE_VALUES.has(value)) return false
      return new RuleFailure('boolean')
    case 'array':
      return Array.isArray(value) ? value : new RuleFailure('array')
  }
}

function toNumber(value: unknown, pattern: RegExp): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null
  if (typeof value !== 'string') return null
  const text = value.trim()
  if (!pattern.test(text)) return null
  const n = Number(text)
  return Number.isFinite(n) ? n : null
}

/** The (possibly transformed) value, or a failure. */
function checkBuiltin(
  rule: BuiltinRule,
  args: string[],
  value: unknown,
  type: FieldType,
  field: string,
  data: Record<string, unknown>,
): unknown {
  switch (rule) {
    case 'required':
    case 'nullable':
    case 'string':
    case 'numeric':
    case 'number':
    case 'integer':
    case 'boolean':
    case 'array':
      return value // handled by isEmpty() and coerce()
    case 'email': {
      if (typeof value !== 'string') return new RuleFailure('email')
      const trimmed = value.trim()
      return v.is(EMAIL_SCHEMA, trimmed) ? trimmed : new RuleFailure('email')
    }
    case 'min':
    case 'max': {
      const limit = Number(args[0])
      const size = sizeOf(value, type)
      if (size === null) return new RuleFailure(type === 'string' ? 'string' : 'invalid')
      const ok = rule === 'min' ? size >= limit : size <= limit
      const variant = type === 'integer' ? 'numeric' : type === 'boolean' ? 'numeric' : type
      return ok ? value : new RuleFailure(`${rule}.${variant}`, { [rule]: args[0]! })
    }
    case 'confirmed':
      return isSameInput(data[field], data[`${field}_confirmation`]) ? value : new RuleFailure('confirmed')
    case 'same':
      return isSameInput(data[field], data[args[0]!]) ? value : new RuleFailure('same', { other: args[0]!.replace(/_/g, ' ') })
    case 'in':
      return (typeof value === 'string' || typeof value === 'number') && args.includes(String(value))
        ? value
        : new RuleFailure('in')
    case 'unique':
    case 'exists':
      return value // run later by checkDatabase()
  }
}

function sizeOf(value: unknown, type: FieldType): number | null {
  if (type === 'string') return typeof value === 'string' ? [...value].length : null
  if (type === 'array') return Array.isArray(value) ? value.length : null
  if (typeof value === 'number') return value
  if (typeof value === 'boolean') return value ? 1 : 0
  return null
}

function isSameInput(a: unknown, b: unknown): boolean {
  return (typeof a === 'string' || typeof a === 'number' || typeof a === 'boolean') && a === b
}

/**
 * `unique:table[,column[,ignoreValue[,ignoreColumn]]]`: no row has this value (text compared
 * case-insensitively, `lower(column) = lower(?)`; an address, i.e. a field with the `email` rule
 * or an `email` column, is compared as accounts are, normalised: see `whereEmail`); the row whose `ignoreColumn` (default `id`)
 * equals `ignoreValue` is skipped, for updates. `exists:table[,column]`: some row has it (same
 * comparison).
 */
async function checkDatabase(
  rule: 'unique' | 'exists',
  args: string[],
  value: unknown,
  field: string,
  given: Knex | undefined,
  isEmail: boolean,
): Promise<RuleFailure | null> {
  // The app's default connection unless the caller names one (`{ db: db('other') }`).
  const db = given ?? (hasDatabase() ? defaultConnection() : undefined)
  if (!db) {
    throw new FrameworkError('E_VALIDATION_RULE', `Validation rule "${rule}" on "${field}" needs a database: pass { db } to validate().`)
  }
  if (typeof value !== 'string' && typeof value !== 'number') return new RuleFailure(rule === 'unique' ? 'string' : 'exists')
  const [table, column = field, ignoreValue, ignoreColumn = 'id'] = args as [string, string?, string?, string?]
  let query = db(table).select(db.raw('1 as found')).limit(1)
  // An address (the field has the `email` rule, or the column is `email` / `…_email`) is compared
  // as accounts compare it, so that `unique`/`exists` agree with registration and login
  // (whereEmail: normalised, and as typed for older rows); other text without case.
  const address = isEmail || /(^|_)email$/i.test(column)
  query = typeof value === 'string' ? (address ? whereEmail(query, column, value) : whereCaseless(query, column, value)) : query.where(column, value)
  if (rule === 'unique' && ignoreValue !== undefined && ignoreValue !== '') query = query.whereNot(ignoreColumn, ignoreValue)
  const found = (await query).length > 0
  if (rule === 'unique') return found ? new RuleFailure('unique') : null
  return found ? null : new RuleFailure('exists')
}
