/**
 * @module cors/cors-config
 * Reads `config/cors.ts` (`export const CORS = { origins, credentials, max_age }`) and
 * `CORS_ORIGINS` (comma-separated; when set, it replaces `origins`), and refuses at boot what is
 * not an origin: `null`, a wildcard, a path, a query, credentials in the URL, a scheme other than
 * http or https. Origins are kept in their serialised form (`new URL(o).origin`), which is what a
 * browser sends in `Origin`, so a request is matched by exact comparison.
 *
 * An app without `config/cors.ts`, or whose origins are empty, has no CORS config (`null`): its
 * requests are answered exactly as if CORS did not exist.
 */
import { FrameworkError } from '../foundation/framework-error.js'
import type { Application } from '../foundation/application.js'

export interface CorsConfig {
  /** Serialised origins (`https://app.example.com`, `http://localhost:5173`). */
  origins: ReadonlySet<string>
  /** Sends `Access-Control-Allow-Credentials: true` (cookies on cross-origin requests). */
  credentials: boolean
  /** Seconds a browser may cache a preflight answer (`Access-Control-Max-Age`). */
  max_age: number
}

export const CORS_DEFAULTS = { credentials: false, max_age: 600 } as const

type ConfigSource = Pick<Application, 'config'>

/**
 * The app's CORS config, or null when CORS is off (no `config/cors.ts`, or no origins).
 * Throws a `FrameworkError` (`E_CORS_CONFIG`) naming `config/cors.ts` or `CORS_ORIGINS`.
 */
export function resolveCorsConfig(app: ConfigSource, environment: NodeJS.ProcessEnv = process.env): CorsConfig | null {
  const file = app.config('cors')
  if (file === undefined || file === null) return null
  const raw: Record<string, unknown> = file.CORS ?? {}
  if (typeof raw !== 'object' || Array.isArray(raw)) throw invalid('config/cors.ts: CORS must be an object ({ origins, credentials, max_age }).')

  const fromEnv = environment.CORS_ORIGINS
  const listed = fromEnv !== undefined && fromEnv.trim() !== '' ? fromEnv.split(',') : raw.origins ?? []
  const where = fromEnv !== undefined && fromEnv.trim() !== '' ? 'CORS_ORIGINS' : 'config/cors.ts: CORS.origins'
  if (!Array.isArray(listed)) throw invalid(`${where} must be an array of origins such as ['https://app.example.com'].`)
  const origins = new Set<string>()
  for (const entry of listed) {
    // `CORS_ORIGINS=a,b,` and spaces after commas are forgiven; an empty entry in the file is not.
    if (where === 'CORS_ORIGINS' && typeof entry === 'string' && entry.trim() === '') continue
    const origin = typeof entry === 'string' ? serialisedOrigin(entry) : null
    if (origin === null) {
      throw invalid(
        `${where} has ${JSON.stringify(entry)}, which is not an origin: write scheme://host[:port] (http or https), ` +
          'with no path, no wildcard and not "null" (list each origin the browser shows in its address bar).',
      )
    }
    origins.add(origin)
  }
  if (origins.size === 0) return null

  const credentials = raw.credentials ?? CORS_DEFAULTS.credentials
  if (typeof credentials !== 'boolean') throw invalid(`config/cors.ts: CORS.credentials must be true or false (got ${JSON.stringify(credentials)}).`)
  const maxAge = raw.max_age ?? CORS_DEFAULTS.max_age
  if (typeof maxAge !== 'number' || !Number.isInteger(maxAge) || maxAge < 0) {
    throw invalid(`config/cors.ts: CORS.max_age must be a whole number of seconds, 0 or more (got ${JSON.stringify(maxAge)}).`)
  }
  return { origins, credentials, max_age: maxAge }
}

/**
 * `value` as a browser serialises an origin (`HTTPS://App.Example.com:443/` →
 * `https://app.example.com`), or null when it is not exactly an origin.
 */
export function serialisedOrigin(value: string): string | null {
  const text = value.trim()
  if (text === '' || text.includes('*') || text.includes('?') || text.includes('#')) return null
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return null
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null
  if (url.username !== '' || url.password !== '' || url.pathname !== '/') return null
  return url.origin
}

function invalid(message: string): FrameworkError {
  return new FrameworkError('E_CORS_CONFIG', message)
}

declare module '../foundation/config-files.js' {
  interface ConfigFiles {
    /** Read and checked by this module. */
    cors: { CORS?: Record<string, unknown> }
  }
}
