/**
 * @module foundation/app-modules
 * Where an app's own modules are imported from. Normally the app's `.ts` files themselves (through
 * tsx, which `craft` registers). When `craft serve` has compiled the app to JavaScript
 * (`cli/compile-app`), `useCompiledApp(root, dir)` points every import of a file under `root` at
 * its compiled copy under `dir` instead: the server then runs without the TypeScript loader
 * (no extra loader thread, no esbuild). `importAppModule` imports one of them, turning a failure
 * into an `E_APP_MODULE` error that names the file in the app's own terms.
 *
 * `craft` prepares the app's modules only when a command first imports one
 * (`prepareAppModulesWith`): a command that never does (`--version`, the generators) neither
 * compiles the app nor loads tsx.
 */
import { relative, sep, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { FrameworkError } from './framework-error.js'

let compiled: { root: string; dir: string } | null = null
let preparer: (() => Promise<void>) | null = null
let prepared: Promise<void> | null = null

/** `prepare` runs once, before the first of the app's modules is imported (null: nothing to do). */
export function prepareAppModulesWith(prepare: (() => Promise<void>) | null): void {
  preparer = prepare
  prepared = null
}

/** Resolves once the app's modules can be imported (compiled, or the TypeScript loader registered). */
export function appModulesReady(): Promise<void> {
  if (!preparer) return Promise.resolve()
  prepared ??= preparer()
  return prepared
}

/** Imports of files under `root` come from `dir` from now on (`.ts` → `.js`, `.mts` → `.mjs`; JavaScript files are copied as they are). */
export function useCompiledApp(root: string, dir: string): void {
  compiled = { root, dir }
}

/** True when the app's modules come from a compiled copy (no TypeScript loader needed). */
export function compiledAppActive(): boolean {
  return compiled !== null
}

/** The file:// URL to import for one of the app's source files. */
export function appModuleUrl(file: string): string {
  if (compiled) {
    const rel = relative(compiled.root, file)
    if (rel && !rel.startsWith('..') && !rel.startsWith(sep) && /\.(m?ts|m?js|cjs)$/.test(rel) && !rel.endsWith('.d.ts')) {
      return pathToFileURL(join(compiled.dir, rel.replace(/\.ts$/, '.js').replace(/\.mts$/, '.mjs'))).href
    }
  }
  return pathToFileURL(file).href
}

/** `text` with the compiled copy's folder written as the app's own (for error messages). */
export function inAppTerms(text: string): string {
  return compiled ? text.split(compiled.dir).join(compiled.root) : text
}

/** Imports one of the app's files; a failure is `E_APP_MODULE` naming `what` (e.g. `Kernel.ts`). */
export async function importAppModule(file: string, what: string): Promise<Record<string, any>> {
  await appModulesReady()
  try {
    return await import(appModuleUrl(file))
  } catch (error) {
    if (error instanceof FrameworkError) throw error
    throw new FrameworkError('E_APP_MODULE', `Could not load ${what}: ${inAppTerms((error as Error).message)}`, { cause: error })
  }
}
