/**
 * Edits of a test app's generated config/auth.ts, shared by the suites: budgets turned off or
 * resized (every request of a suite comes from 127.0.0.1, so per-address budgets would trip), and
 * keys of the web guard.
 */
import type { TestApp } from './app-harness.js'

export type BudgetName = 'login' | 'ip' | 'account' | 'register' | 'reset' | 'verify' | 'confirm' | 'two_factor'
export type BudgetValue = { attempts: number; minutes: number } | null

/** Sets each named budget of GUARDS.throttle (null turns it off); throws when one is not in the file. */
export function setBudgets(app: TestApp, budgets: Partial<Record<BudgetName, BudgetValue>>): void {
  app.edit('config/auth.ts', (text) => {
    let out = text
    for (const [name, value] of Object.entries(budgets)) {
      const pattern = new RegExp(`\\b${name}: (\\{ attempts: \\d+, minutes: [\\d.]+ \\}|null)`)
      if (!pattern.test(out)) throw new Error(`config/auth.ts has no throttle.${name} to edit`)
      out = out.replace(pattern, `${name}: ${value === null ? 'null' : `{ attempts: ${value!.attempts}, minutes: ${value!.minutes} }`}`)
    }
    return out
  })
}

/**
 * Every budget off but those named in `keep`, and a patient hashing queue: a suite that fires a
 * burst of logins at once on a loaded machine would otherwise meet the 2 s default of
 * `GUARDS.hashing.max_wait` (503 E_SERVER_BUSY), which is not what it tests.
 */
export function budgetsOff(app: TestApp, keep: BudgetName[] = []): void {
  const all: BudgetName[] = ['login', 'ip', 'account', 'register', 'reset', 'verify', 'confirm', 'two_factor']
  setBudgets(app, Object.fromEntries(all.filter((n) => !keep.includes(n)).map((n) => [n, null])))
  patientHashing(app)
}

/** Sets `GUARDS.hashing.max_wait` (ms a password check may wait for a thread; default 60 s here). */
export function patientHashing(app: TestApp, maxWaitMs = 60_000): void {
  app.edit('config/auth.ts', (text) => {
    if (/\bhashing: \{/.test(text)) return text.replace(/\bhashing: \{[^}]*\}/, `hashing: { max_wait: ${maxWaitMs} }`)
    if (!text.includes('export const GUARDS = {')) throw new Error('config/auth.ts has no "export const GUARDS = {" to edit')
    return text.replace('export const GUARDS = {', `export const GUARDS = {\n  hashing: { max_wait: ${maxWaitMs} },`)
  })
}

/** Adds keys to the web guard's entry (`web: { model: User }`), e.g. `{ password_timeout: 0.1 }`. */
export function setWebGuard(app: TestApp, keys: Record<string, number | null>): void {
  app.edit('config/auth.ts', (text) => {
    if (!text.includes('web: { model: User }')) throw new Error('config/auth.ts has no "web: { model: User }" to edit')
    const extra = Object.entries(keys).map(([k, v]) => `, ${k}: ${v}`).join('')
    return text.replace('web: { model: User }', `web: { model: User${extra} }`)
  })
}
