/**
 * The seed's steps on a test app, through the same script the demo uses.
 */
import { readdirSync, renameSync } from 'node:fs'
import { join } from 'node:path'
import { migrationFileName, migrationName, nextMigrationDate } from '../../src/database/migration-stubs.js'
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

/**
 * The steps, then the migrations they made (the token column's, and those of `craft api:install`)
 * named as `craft migration` names them in the second the app's latest migration was made, one
 * second apart in the same order, not by the clock: apps given the same steps then have the same
 * migrations, so they share the run's migrated database (app-harness.ts) instead of each migrating
 * its own.
 */
export function applyApiSteps(app: TestApp, options: ApiStepOptions = {}): void {
  const folder = join(app.dir, 'databases/migrations')
  const stamped = () => readdirSync(folder).filter((name) => name.endsWith('.ts') && migrationName(name) !== null).sort()
  const before = stamped()
  apply(app.dir, crafter(app), options)
  if (before.length === 0) return
  const names = [...before]
  for (const made of stamped().filter((name) => !before.includes(name))) {
    const steady = migrationFileName(migrationName(made)!, nextMigrationDate(names, new Date(0)))
    if (steady !== made) renameSync(join(folder, made), join(folder, steady))
    names.push(steady)
  }
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
