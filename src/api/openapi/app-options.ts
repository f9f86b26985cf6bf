/**
 * @module api/openapi/app-options
 * The document's `info` from the app itself: `APPLICATION.name` (config/application.ts) as the
 * title, the app's package.json `version`, and `APPLICATION.url` as the server.
 */
import { readFileSync } from 'node:fs'
import type { Application } from '../../foundation/application.js'
import type { OpenApiOptions } from './document.js'

export function openApiOptionsFor(app: Application): OpenApiOptions {
  const application = app.config('application')?.APPLICATION ?? {}
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
