/**
 * @module cli/compile-app-child
 * Run by `cli/compile-app` in a child process, so that esbuild's memory never stays in the server:
 * `node compile-app-child.js` with `{ root, outdir, ts, mts, target }` as JSON on stdin transforms the
 * files (no bundling, inline source maps) and exits 0, or prints esbuild's error and exits 1.
 *
 * Each file keeps its own `import.meta.url`, `import.meta.filename` and `import.meta.dirname`:
 * they name the `.ts` file in the app, not its copy, so code that finds a file next to itself
 * (`new URL('../../storage/users.json', import.meta.url)`) reads the same file whichever way the
 * app is loaded. Imports are resolved by Node from the copy's own location, as before.
 */
import { readFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { pathToFileURL } from 'node:url'
import { build, type BuildOptions } from 'esbuild'

interface Job {
  root: string
  outdir: string
  ts: string[]
  mts: string[]
  target: string
}

const job = JSON.parse(readFileSync(0, 'utf8')) as Job
const common: BuildOptions = {
  outdir: job.outdir,
  outbase: job.root,
  absWorkingDir: job.root,
  format: 'esm',
  platform: 'node',
  target: job.target,
  sourcemap: 'inline',
  bundle: false,
  logLevel: 'silent',
}
/** One build per file: `define` is per build. */
function compile(file: string, extra: BuildOptions = {}): Promise<unknown> {
  const define = {
    'import.meta.url': JSON.stringify(pathToFileURL(file).href),
    'import.meta.filename': JSON.stringify(file),
    'import.meta.dirname': JSON.stringify(dirname(file)),
  }
  return build({ ...common, ...extra, define, entryPoints: [file] })
}
try {
  await Promise.all([...job.ts.map((file) => compile(file)), ...job.mts.map((file) => compile(file, { outExtension: { '.js': '.mjs' } }))])
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n`)
  process.exit(1)
}
