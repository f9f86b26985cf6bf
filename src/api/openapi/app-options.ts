/**
 * @module api/openapi/app-options
 * The document's `info` from the app itself: `APPLICATION.name` (config/application.ts) as the
 * title, the app's package.json `version`, and `APPLICATION.url` as the server.
 */
import { readFileSync } from 'node:fs'
import type { Application } from '../../foundation/application.js'
import type { OpenApiOptions } from './document.js'

/** `APPLICATION` of config/application.ts (its `name` and `url`, when they are strings). */
function applicationSettings(app: Application): { name?: unknown; url?: unknown } {
  const file = app.config<unknown>('application')
  const settings = typeof file === 'object' && file !== null ? (file as { APPLICATION?: unknown }).APPLICATION : undefined
  return typeof settings === 'object' && settings !== null ? settings : {}
}

export function openApiOptionsFor(app: Application): OpenApiOptions {
  const application = applicationSettings(app)
  let version: string | undefined
  try {
    version = JSON.parse(readFileSync(app.path('package.json'), 'utf8')).version
  } catch {
    version = undefined
  }
  const name = typeof application.name === 'string' && application.name !== '' ? application.name : 'Trowel'
  return {
    title: `${name} API`,
    version: typeof version === 'string' && version !== '' ? version : '1.0.0',
    serverUrl: typeof application.url === 'string' && application.url !== '' ? application.url.replace(/\/+$/, '') : undefined,
  }
}
