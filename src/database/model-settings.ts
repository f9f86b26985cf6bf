/**
 * @module database/model-settings
 * The statics a model class may declare (`table`, `fillable`, `hidden`…) and how they are read.
 * None is declared on `Model` itself, so a subclass writes `static table = 'users'` without
 * `override` under `noImplicitOverride`; `Model`'s getters read them through `modelSettings()`.
 */
import type { CastType } from './casts.js'

/** The statics a model class may declare (see the `database/model` module documentation). */
export interface ModelSettings {
  table?: string
  primaryKey?: string
  fillable?: readonly string[]
  hidden?: readonly string[]
  extraHidden?: readonly string[]
  casts?: Readonly<Record<string, CastType>>
  timestamps?: boolean
  connection?: string
}

/** A model class seen as the settings it declares. */
export function modelSettings(model: object): ModelSettings {
  return model as ModelSettings
}

/** The default table of a class: its name in snake_case, plural (`User` → `users`). */
export function tableNameFor(className: string): string {
  const snake = className.replace(/([a-z0-9])([A-Z])/g, '$1_$2').replace(/[^A-Za-z0-9_]/g, '').toLowerCase() || 'model'
  if (/(s|x|z|ch|sh)$/.test(snake)) return `${snake}es`
  if (/[^aeiou]y$/.test(snake)) return `${snake.slice(0, -1)}ies`
  return `${snake}s`
}

/** Every `extraHidden` declared on `model` or a class it extends. */
export function extraHiddenOf(model: object): string[] {
  const fields: string[] = []
  for (let current: object | null = model; current && current !== Function.prototype; current = Object.getPrototypeOf(current) as object | null) {
    if (Object.hasOwn(current, 'extraHidden')) fields.push(...(modelSettings(current).extraHidden ?? []))
  }
  return fields
}
