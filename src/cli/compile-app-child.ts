/**
 * @module cli/compile-app-child
 * Run by `cli/compile-app` in a child process, so that esbuild's memory never stays in the server:
 * `node compile-app-child.js` with `{ root, outdir, ts, mts, target }` as JSON on stdin transforms the
 * files (no bundling, inline source maps) and exits 0, or prints esbuild's error and exits 1.
 *
 * Each file keeps its own `import.meta.url`, `import.meta.filename` and `import.meta.dirname`:
 * they name the `.ts` file in the app, not its copy, so code that finds a file next to itself
 * (`new URL('../../storage/users.json', import.meta.url)`) reads the same file whichever way the
 * app is loaded. A file that mentions `import.meta` finds its source from its own place in the
 * copy at run time, so the copy works wherever the app is moved with its storage/. Imports are
 * resolved by Node from the copy's own location.
 */
import { readFileSync } from 'node:fs'
import { dirname, join, relative, sep } from 'node:path'
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
const META = {
  'import.meta.url': '__trowelImportMetaUrl',
  'import.meta.filename': '__trowelImportMetaFilename',
  'import.meta.dirname': '__trowelImportMetaDirname',
}

/** The line that gives a module of the copy its source's `import.meta`, found from the copy's own place. */
function relativeMeta(file: string, outExtension: string): string {
  const out = join(job.outdir, relative(job.root, file)).replace(/\.m?ts$/, outExtension)
  const path = relative(dirname(out), file).split(sep).map(encodeURIComponent).join('/')
  return (
    "import { fileURLToPath as __trowelFileURLToPath } from 'node:url'; import { dirname as __trowelDirname } from 'node:path'; " +
    `const __trowelImportMetaUrl = new URL(${JSON.stringify(path)}, import.meta.url).href, ` +
    '__trowelImportMetaFilename = __trowelFileURLToPath(__trowelImportMetaUrl), __trowelImportMetaDirname = __trowelDirname(__trowelImportMetaFilename);'
  )
}

/** One build per file: `banner` is per build. */
function compile(file: string, outExtension = '.js'): Promise<unknown> {
  const extra: BuildOptions = outExtension === '.js' ? {} : { outExtension: { '.js': outExtension } }
  const meta: BuildOptions = readFileSync(file, 'utf8').includes('import.meta') ? { define: META, banner: { js: relativeMeta(file, outExtension) } } : {}
  return build({ ...common, ...extra, ...meta, entryPoints: [file] })
}
try {
  await Promise.all([...job.ts.map((file) => compile(file)), ...job.mts.map((file) => compile(file, '.mjs'))])
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n`)
  process.exit(1)
}
