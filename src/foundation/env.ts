/**
 * @module foundation/env
 * `env(name, fallback)`: reads the process environment (which always wins over `.env`).
 * The strings `true`, `false` and `null` (any case) become those values, and an empty value
 * counts as unset, as in Laravel and Masonite.
 */
export function env<T = string | undefined>(name: string, fallback?: T): string | boolean | null | T {
  const raw = process.env[name]
  if (raw === undefined || raw === '') return fallback as T
  switch (raw.toLowerCase()) {
    case 'true':
    case '(true)':
      return true
    case 'false':
    case '(false)':
      return false
    case 'null':
    case '(null)':
      return null
    default:
      return raw
  }
}
