/**
 * @module cli/serve-notices
 * What `craft serve` says before it starts, about settings that are easy to get wrong:
 * - `APP_DEBUG=true` on an address other machines can reach, or with `APP_ENV=production`: a
 *   warning (the debug error page shows source code and request details to whoever asks);
 * - `APP_URL` (the base of links in e-mails) on this machine but on another port than the one
 *   served: a warning naming both and the fix. When `APP_URL` is the generated default
 *   `http://localhost:8000` (or `http://127.0.0.1:8000`, that of apps made before; from `.env` or
 *   unset, not given in the environment), it follows `--port` instead, with an info line.
 * - (after boot, `passkeyNotice`) passkeys on while `APP_URL`'s host is an IP address, which
 *   WebAuthn refuses as a relying party: a warning naming passkeys and `APP_URL`.
 */
import { DEFAULT_APP_URL } from '../foundation/config-files.js'
import { isIP } from 'node:net'

export { DEFAULT_APP_URL }
/** The generated `APP_URL` of apps made before (followed with `--port` like the current one). */
export const LEGACY_APP_URL = 'http://127.0.0.1:8000'

export interface ServeNotices {
  warnings: string[]
  info: string[]
  /** The `APP_URL` to serve with, when it follows `--port`. */
  appUrl?: string
}

/** 127.x.x.x, ::1 and localhost. */
export function isLoopback(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '')
  return h === 'localhost' || h.endsWith('.localhost') || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h) || h === '::ffff:127.0.0.1'
}

/**
 * The notices for serving on `host:port`. `env` is the environment with `.env` loaded; `given`
 * the environment craft was started with (before `.env`), to tell a chosen `APP_URL` from the
 * generated one. Port 0 (a free port chosen at start) is never compared.
 */
export function serveNotices(options: { host: string; port: number; env: NodeJS.ProcessEnv; given: NodeJS.ProcessEnv }): ServeNotices {
  const { host, port, env, given } = options
  const out: ServeNotices = { warnings: [], info: [] }
  const debug = String(env.APP_DEBUG ?? '').toLowerCase() === 'true'
  if (debug && String(env.APP_ENV ?? '').toLowerCase() === 'production') {
    out.warnings.push(
      'APP_DEBUG=true with APP_ENV=production: error pages show stack traces, source code and request details to anyone. Set APP_DEBUG=false.',
    )
  } else if (debug && !isLoopback(host)) {
    out.warnings.push(
      `APP_DEBUG=true while serving on ${host}, which other machines can reach: error pages show stack traces, source code and request details to them. ` +
        'Set APP_DEBUG=false in .env, or serve on 127.0.0.1.',
    )
  }
  if (port === 0) return out
  const configured = env.APP_URL
  const generated = configured === undefined || ((configured === DEFAULT_APP_URL || configured === LEGACY_APP_URL) && given.APP_URL === undefined)
  if (generated) {
    if (port !== 8000) {
      out.appUrl = `${configured === LEGACY_APP_URL ? 'http://127.0.0.1' : 'http://localhost'}:${port}`
      out.info.push(`APP_URL follows --port: links in e-mails use ${out.appUrl} (set APP_URL in .env to choose it yourself).`)
    }
    return out
  }
  let url: URL
  try {
    url = new URL(configured!)
  } catch {
    out.warnings.push(`APP_URL "${configured}" is not a URL: links in e-mails will be broken. Set it to e.g. http://localhost:${port} in .env.`)
    return out
  }
  const urlPort = Number(url.port || (url.protocol === 'https:' ? 443 : 80))
  // A public APP_URL usually sits behind a proxy on another port: only a local one is compared.
  if (isLoopback(url.hostname) && urlPort !== port) {
    const fixed = new URL(url.href)
    fixed.port = String(port)
    out.warnings.push(
      `APP_URL is ${configured} but the server listens on port ${port}: links in e-mails (password reset, e-mail verification) ` +
        `will point to port ${urlPort}, maybe to another app. Set APP_URL=${fixed.href.replace(/\/$/, configured!.endsWith('/') ? '/' : '')} in .env, or serve with --port ${urlPort}.`,
    )
  }
  return out
}

/**
 * The warning for passkeys that cannot work: the `passkeys` feature on while `appUrl`'s host is an
 * IP address (WebAuthn takes the relying party from it and refuses an IP). Null otherwise.
 */
export function passkeyNotice(appUrl: string, passkeysOn: boolean): string | null {
  if (!passkeysOn) return null
  let host: string
  try {
    host = new URL(appUrl).hostname.replace(/^\[|\]$/g, '')
  } catch {
    return null
  }
  if (isIP(host) === 0) return null
  const fixed = new URL(appUrl)
  fixed.hostname = 'localhost'
  return (
    `Passkeys are on (GUARDS.features) but APP_URL is ${appUrl}, an IP address, which WebAuthn refuses: no passkey can be added or used. ` +
    `Set APP_URL=${fixed.origin} in .env (or your domain); the server can still listen on ${host}.`
  )
}
