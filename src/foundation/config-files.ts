/**
 * @module foundation/config-files
 * What each `config/<name>.ts` exports, by name, so `app.config('<name>')` is typed. The
 * foundation declares the files it reads itself; each provider or feature adds its own by
 * declaration merging (`declare module '../foundation/config-files.js' { interface ConfigFiles
 * { auth: { GUARDS?: AuthGuardsConfig } } }`). A name nobody declared reads as a plain record.
 */
import type { ServiceProviderClass } from './service-provider.js'

/** `config/application.ts`'s `APPLICATION`. */
export interface ApplicationSettings {
  /** The app's name, in mails and pages (APP_NAME; default `Trowel`). */
  name?: string
  /** The base of every link in a mail, never the request's Host header (APP_URL). */
  url?: string
  /** APP_ENV: `production` turns the development conveniences off. */
  env?: string
  debug?: boolean
  [setting: string]: unknown
}

export interface ConfigFiles {
  application: { APPLICATION?: ApplicationSettings }
  providers: { PROVIDERS?: ServiceProviderClass[] }
}

/**
 * The `APP_URL` that `craft new` writes and the config falls back to: `localhost`, not
 * 127.0.0.1, because WebAuthn (passkeys) refuses an IP address. The server still listens on
 * 127.0.0.1 unless `--host` says otherwise.
 */
export const DEFAULT_APP_URL = 'http://localhost:8000'

interface Configured {
  config<K extends keyof ConfigFiles>(name: K): ConfigFiles[K] | undefined
}

/** The base of the app's links: `APPLICATION.url`, else APP_URL, else the default; no trailing slash. */
export function appUrl(app: Configured): string {
  return String(app.config('application')?.APPLICATION?.url ?? process.env.APP_URL ?? DEFAULT_APP_URL).replace(/\/+$/, '')
}

/** The app's name for mails and pages: `APPLICATION.name`, else APP_NAME, else `Trowel`. */
export function appName(app: Configured): string {
  return String(app.config('application')?.APPLICATION?.name ?? process.env.APP_NAME ?? 'Trowel')
}

/** Whether the app runs in production: `APPLICATION.env`, else APP_ENV, is `production`. */
export function inProduction(app: Configured): boolean {
  return String(app.config('application')?.APPLICATION?.env ?? process.env.APP_ENV ?? '').toLowerCase() === 'production'
}
