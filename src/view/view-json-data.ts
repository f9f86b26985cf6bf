/**
 * @module view/view-json-data
 * What a page's view answers to a JSON request (`session/json-forms`): its data, without what only
 * the page needs and without secrets.
 */
import { loadNunjucks } from './load-nunjucks.js'

/** Keys of a view's data never answered as JSON: the page's own furniture. */
const VIEW_ONLY = new Set(['csrf_field', 'csrf_token', 'messages', 'errors', 'old', 'session', 'request', 'flash', 'route', 'has_route'])

/** Keys that name a secret: left out of a view's data at any depth (a user's TOTP `..._secret`, a `new_token`...). */
const SECRET_KEY = /password|secret|token|hash|recovery_code/i

/**
 * The JSON of a view's data: `pick` when given (the keys to keep, or a function of the data);
 * else every key but functions, markup (QR codes, pre-rendered HTML), keys starting with `_`,
 * the page's furniture (`csrf_*`, `messages`, `errors`, `old`, ...) and, at any depth, keys that
 * name a secret (`SECRET_KEY`); models are serialised first (`toJSON`, so hidden fields never leave).
 */
export function viewJsonData(data: Record<string, unknown>, pick?: readonly string[] | ((data: Record<string, unknown>) => Record<string, unknown>)): Record<string, unknown> {
  if (typeof pick === 'function') return pick(data)
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(data)) {
    if (pick ? !pick.includes(key) : VIEW_ONLY.has(key) || key.startsWith('_') || SECRET_KEY.test(key)) continue
    if (typeof value === 'function' || isMarkup(value)) continue
    out[key] = value
  }
  return pick ? out : (withoutSecrets(JSON.parse(JSON.stringify(out))) as Record<string, unknown>)
}

function withoutSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSecrets)
  if (!isPlainObject(value)) return value
  const out: Record<string, unknown> = {}
  for (const [key, inner] of Object.entries(value)) if (!SECRET_KEY.test(key)) out[key] = withoutSecrets(inner)
  return out
}

function isMarkup(value: unknown): boolean {
  return value instanceof loadNunjucks().runtime.SafeString
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
