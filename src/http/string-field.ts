/**
 * @module http/string-field
 * A field of a request body as a string (the token routes and the API login's second step).
 */
import type { HttpContext } from './context.js'
import { ValidationError } from './errors.js'

/** Field `name` of the body (never the query string: credentials and tokens stay out of URLs). */
export function stringField(ctx: HttpContext, name: string): string | undefined {
  const value = ctx.request.post(name)
  if (value === undefined) return undefined
  // null, numbers, arrays (repeated form keys) and objects (`{"$ne": null}`) are type confusion: 422.
  if (typeof value !== 'string') throw new ValidationError({ [name]: [`The ${name} field must be a string.`] })
  return value
}
