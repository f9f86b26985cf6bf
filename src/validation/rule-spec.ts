/**
 * @module validation/rule-spec
 * How rules are written: a Laravel-style string (`'required|email|max:254'`), or a list mixing
 * rule strings, functions and valibot schemas. `parseRules` turns either into `ParsedRule`s and
 * rejects unknown rule names (a programming error, reported before any input is looked at).
 */
import type { Knex } from 'knex'
import type { GenericSchema, GenericSchemaAsync } from 'valibot'
import { FrameworkError } from '../foundation/framework-error.js'

/** What a custom rule receives besides the value. */
export interface RuleContext {
  field: string
  /** All the data being validated. */
  data: Record<string, unknown>
  db?: Knex
}

/** A custom rule: returns an error message to fail, nothing to pass. May be async. */
export type CustomRule = (value: unknown, context: RuleContext) => string | null | undefined | void | Promise<string | null | undefined | void>

/** One rule: `'min:8'`, a custom function, or a valibot schema (its output replaces the value). */
export type RuleSpec = string | CustomRule | GenericSchema | GenericSchemaAsync

export const BUILTIN_RULES = [
  'required',
  'nullable',
  'string',
  'email',
  'numeric',
  'number',
  'integer',
  'boolean',
  'array',
  'min',
  'max',
  'confirmed',
  'same',
  'in',
  'unique',
  'exists',
] as const
export type BuiltinRule = (typeof BUILTIN_RULES)[number]

export type ParsedRule =
  | { kind: 'builtin'; name: BuiltinRule; args: string[] }
  | { kind: 'custom'; fn: CustomRule }
  | { kind: 'schema'; schema: GenericSchema | GenericSchemaAsync }

/** Rules that take arguments, with how many they need at least. */
const MIN_ARGS: Partial<Record<BuiltinRule, number>> = { min: 1, max: 1, same: 1, in: 1, unique: 1, exists: 1 }

export function parseRules(field: string, rules: string | readonly RuleSpec[]): ParsedRule[] {
  const specs: readonly RuleSpec[] = typeof rules === 'string' ? rules.split('|') : rules
  const parsed: ParsedRule[] = []
  for (const spec of specs) {
    if (typeof spec === 'function') parsed.push({ kind: 'custom', fn: spec })
    else if (isSchema(spec)) parsed.push({ kind: 'schema', schema: spec })
    else if (typeof spec === 'string') {
      const text = spec.trim()
      if (text === '') continue
      for (const part of typeof rules === 'string' ? [text] : text.split('|')) parsed.push(parseOne(field, part.trim()))
    } else throw invalid(field, `a rule must be a string, a function or a valibot schema (got ${typeof spec})`)
  }
  return parsed
}

function parseOne(field: string, text: string): ParsedRule {
  const colon = text.indexOf(':')
  const name = (colon === -1 ? text : text.slice(0, colon)).trim().toLowerCase()
  const args = colon === -1 ? [] : text.slice(colon + 1).split(',').map((a) => a.trim())
  if (!(BUILTIN_RULES as readonly string[]).includes(name)) throw invalid(field, `unknown rule "${name}"`)
  const rule = name as BuiltinRule
  const needed = MIN_ARGS[rule] ?? 0
  if (args.filter((a) => a !== '').length < needed) throw invalid(field, `rule "${rule}" needs an argument (e.g. "${rule}:…")`)
  if ((rule === 'min' || rule === 'max') && !Number.isFinite(Number(args[0]))) {
    throw invalid(field, `rule "${rule}" needs a number (got "${args[0]}")`)
  }
  return { kind: 'builtin', name: rule, args }
}

function isSchema(value: unknown): value is GenericSchema | GenericSchemaAsync {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'schema' && '~run' in value
}

function invalid(field: string, detail: string): FrameworkError {
  return new FrameworkError('E_VALIDATION_RULE', `Validation rules for "${field}": ${detail}.`)
}
