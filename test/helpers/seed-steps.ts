/**
 * The seed's steps on a test app, through the same script the demo uses.
 */
import type { TestApp } from './app-harness.js'
// @ts-expect-error: a plain .mjs module without types
import { applyApiSteps as apply, applyAuthSteps as applyAuth } from '../../scripts/seed-steps.mjs'

export interface ApiStepOptions {
  loadUser?: boolean
  apiRoutes?: string
  authRoute?: string
  reauthRoute?: string
  tokenColumn?: string
}

function crafter(app: TestApp) {
  return (args: string[]) => {
    const r = app.craft(...args)
    if (r.code !== 0) throw new Error(`craft ${args.join(' ')} failed: ${r.stderr}${r.stdout}`)
    return r
  }
}

export function applyApiSteps(app: TestApp, options: ApiStepOptions = {}): void {
  apply(app.dir, crafter(app), options)
}

export function applyAuthSteps(app: TestApp): void {
  applyAuth(app.dir, crafter(app))
}

/** Sets keys of DRIVERS.jwt in config/api.ts (values as TypeScript source). */
export function setJwtConfig(app: TestApp, values: Record<string, string>): void {
  app.edit('config/api.ts', (t) => {
    let out = t
    for (const [k, v] of Object.entries(values)) out = out.replace(new RegExp(`${k}: [^,}]+`), `${k}: ${v}`)
    return out
  })
}
