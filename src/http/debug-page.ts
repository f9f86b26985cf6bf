/**
 * @module http/debug-page
 * The page a browser gets, with `APP_DEBUG=true` only, when a request ends in an unexpected error
 * (5xx): the message, the source around the failing line, the stack with the app's own frames
 * marked "In App" and the first of them opened, and the request (method, URL, route, headers,
 * query, cookie names, session keys) with every secret masked. Rendered by youch (the error page
 * of AdonisJS), loaded on the first such error only, so production never loads it.
 *
 * Masked: the values of `Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie` and of every
 * header, query field or route parameter named like a secret (password, token, secret, key,
 * auth, session, signature, credential...); cookies and session entries are listed by name only.
 */
import { realpathSync } from 'node:fs'
import { sep } from 'node:path'
import type { HttpContext } from './context.js'
import { FRAMEWORK_ROOT } from '../support/framework-root.js'

export const MASK = '[masked]'

/** Names whose values never appear on the page. */
const SECRET_NAME = /pass|token|secret|key|auth|session|signature|credential|cookie|jwt|otp|nonce|csrf|xsrf|private/i

export interface DebugRequestDetails {
  method: string
  /** Path and query string, with secret query values and route parameters masked. */
  url: string
  route?: string
  headers: Record<string, string>
  query: Record<string, string>
  cookies: string[]
  /** What providers add (`ExceptionHandler.debugDetails`): a title, and under it labelled lines. */
  extra: Record<string, Record<string, string>>
}

/**
 * A provider's part of the debug page's request: `{ title: { label: line } }` (the session's:
 * `{ Session: { keys: 'auth.login, csrf (values hidden)' } }`), secrets left out; undefined for nothing.
 */
export type DebugDetail = (ctx: HttpContext) => Record<string, Record<string, string>> | undefined

function maskValue(name: string, value: unknown): string {
  if (SECRET_NAME.test(name)) return MASK
  return Array.isArray(value) ? value.map(String).join(', ') : String(value ?? '')
}

/** What the page shows of the request, secrets masked (see the module comment). */
export function debugRequestDetails(ctx: HttpContext, details: readonly DebugDetail[] = []): DebugRequestDetails {
  const request = ctx.request
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(request.raw.headers)) {
    if (value !== undefined) headers[name] = maskValue(name, value)
  }
  const query: Record<string, string> = {}
  for (const [name, value] of Object.entries(request.query ?? {})) query[name] = maskValue(name, value)
  // The path as sent, with secret route parameters (a reset token in /change_password/<token>) masked.
  let path = request.path
  for (const [name, value] of Object.entries(ctx.params ?? {})) {
    if (!SECRET_NAME.test(name) || !value) continue
    path = path.split(encodeURIComponent(value)).join(MASK).split(value).join(MASK)
  }
  // Shown decoded (the page escapes it): `?q=<b>` reads better than `?q=%3Cb%3E`.
  const qs = Object.entries(query).map(([name, value]) => `${name}=${value}`).join('&')
  const cookieHeader = request.raw.headers.cookie ?? ''
  const cookies = [...new Set(cookieHeader.split(';').map((c) => c.split('=')[0]!.trim()).filter(Boolean))]
  const extra: Record<string, Record<string, string>> = {}
  for (const detail of details) {
    try {
      Object.assign(extra, detail(ctx))
    } catch {
      // A part that cannot be read (a session store that is down) is left out, not the page.
    }
  }
  return {
    method: request.method,
    url: qs ? `${path}?${qs}` : path,
    route: ctx.route ? `${ctx.route.methods.join('|')} ${ctx.route.path}${ctx.route.name ? ` (${ctx.route.name})` : ''}` : undefined,
    headers,
    query,
    cookies,
    extra,
  }
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!)

/** youch prints row keys as HTML: header names and query keys come from the client. */
const rows = (record: Record<string, string>) => Object.entries(record).map(([key, value]) => ({ key: escapeHtml(key), value }))

let frameworkRoots: string[] | undefined
function isFrameworkFile(file: string): boolean {
  if (!frameworkRoots) {
    frameworkRoots = [FRAMEWORK_ROOT + sep]
    try {
      const real = realpathSync(FRAMEWORK_ROOT) + sep
      if (!frameworkRoots.includes(real)) frameworkRoots.push(real)
    } catch {
      // The path as given is enough.
    }
  }
  const path = file.startsWith('file://') ? decodeURIComponent(new URL(file).pathname) : file
  return frameworkRoots.some((root) => path.startsWith(root)) || /[\\/]node_modules[\\/]/.test(path)
}

export interface DebugPageOptions {
  status: number
  /** The reason phrase: "Internal Server Error". */
  title: string
  code: string
  request: DebugRequestDetails
}

/**
 * The debug page's HTML. Frames in the framework or in node_modules are library frames; frames
 * in Node itself are hidden behind "View All Frames"; the others are the app's ("In App"), the
 * first of which is opened on its source.
 */
export async function renderDebugPage(error: unknown, options: DebugPageOptions): Promise<string> {
  const { Youch } = await import('youch')
  const youch = new Youch()
  youch.useTransformer((parsed) => {
    for (const frame of parsed.frames) {
      const file = frame.fileName ?? ''
      if (file.startsWith('node:') || frame.type === 'native' || file === '') frame.type = 'native'
      else if (isFrameworkFile(file)) frame.type = 'module'
      else frame.type = 'app'
    }
  })
  const r = options.request
  youch.metadata.group('Request', {
    Request: [
      { key: 'Method', value: r.method },
      { key: 'URL', value: r.url },
      ...(r.route ? [{ key: 'Route', value: r.route }] : []),
      { key: 'Status', value: `${options.status} ${options.code}` },
    ],
    Headers: rows(r.headers),
    ...(Object.keys(r.query).length > 0 ? { Query: rows(r.query) } : {}),
    Cookies: { key: 'names', value: r.cookies.length > 0 ? r.cookies.join(', ') + ' (values hidden)' : 'none' },
    ...Object.fromEntries(Object.entries(r.extra).map(([title, lines]) => [escapeHtml(title), rows(lines)])),
  })
  youch.metadata.group('App', {
    Runtime: [
      { key: 'Node.js', value: process.version },
      { key: 'APP_ENV', value: process.env.APP_ENV ?? '(unset)' },
      { key: 'Working folder', value: process.cwd() },
    ],
    Note: { key: 'debug', value: 'This page is shown because APP_DEBUG=true. Never set it in production: the page shows your source code.' },
  })
  return youch.toHTML(error, { title: `${options.status} ${options.title}`, frameSourceBuffer: 11 })
}
