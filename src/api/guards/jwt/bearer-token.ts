/**
 * @module api/guards/jwt/bearer-token
 * Reads the token from `Authorization: Bearer <token>` only (scheme case-insensitive, exactly one
 * space, token characters of a JWT; exactly one Authorization header). Never from the query string
 * or the body.
 */
import type { Request } from '../../../http/request.js'

/** The token; `undefined` when no Bearer credentials were sent; `null` when they are malformed. */
export function bearerToken(request: Request): string | null | undefined {
  const header = request.raw.headers.authorization
  if (typeof header !== 'string' || header.length === 0) return undefined
  if (!/^bearer(\s|$)/i.test(header)) return undefined
  // Node keeps only the first of repeated Authorization headers; a proxy may honour another one.
  // Ambiguous credentials are refused.
  if (authorizationCount(request.raw.rawHeaders) > 1) return null
  const match = /^bearer ([A-Za-z0-9_\-.=+/]+)$/i.exec(header)
  if (!match) return header.trim().length <= 6 ? undefined : null
  return match[1]!
}

function authorizationCount(rawHeaders: string[]): number {
  let count = 0
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i]!.length === 13 && rawHeaders[i]!.toLowerCase() === 'authorization') count++
  return count
}
