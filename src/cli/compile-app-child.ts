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
import { build, type BuildOptions, type Plugin } from 'esbuild'

interface Job {
  root: string
  outdir: string
  ts: string[]
  mts: string[]
  target: string
}

const job = JSON.parse(readFileSync(0, 'utf8')) as Job

/**
 * Reads each file once: one that mentions `import.meta` starts with a line's worth of code (on its
 * first line, so source-map lines stay) that names its source relative to the copy's own URL; the
 * build's `define` points `import.meta.*` at those names.
 */
const importMetaOfTheSource: Plugin = {
  name: 'import-meta-of-the-source',
  setup(b) {
    b.onLoad({ filter: /\.m?ts$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8')
      if (!text.includes('import.meta')) return { contents: text, loader: 'ts' }
      // A `#!` line stays first.
      const hashbang = text.startsWith('#!') ? text.slice(0, text.indexOf('\n') + 1) : ''
      const out = join(job.outdir, relative(job.root, args.path)).replace(/\.(m?)ts$/, '.$1js')
      const path = relative(dirname(out), args.path).split(sep).map(encodeURIComponent).join('/')
      const meta =
        "import { fileURLToPath as __trowelFileURLToPath } from 'node:url'; import { dirname as __trowelDirname } from 'node:path'; " +
        // `import.meta` itself, not its `.url`, which the build's `define` rewrites.
        `const __trowelImportMeta = import.meta, __trowelImportMetaUrl = new URL(${JSON.stringify(path)}, __trowelImportMeta.url).href, ` +
        '__trowelImportMetaFilename = __trowelFileURLToPath(__trowelImportMetaUrl), __trowelImportMetaDirname = __trowelDirname(__trowelImportMetaFilename);'
      return { contents: `${hashbang}${meta}${text.slice(hashbang.length)}`, loader: 'ts' }
    })
  },
}

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
  define: {
    'import.meta.url': '__trowelImportMetaUrl',
    'import.meta.filename': '__trowelImportMetaFilename',
    'import.meta.dirname': '__trowelImportMetaDirname',
  },
  plugins: [importMetaOfTheSource],
}
try {
  // `.mts` files become `.mjs`: the output extension is per build.
  await Promise.all([
    job.ts.length ? build({ ...common, entryPoints: job.ts }) : null,
    job.mts.length ? build({ ...common, outExtension: { '.js': '.mjs' }, entryPoints: job.mts }) : null,
  ])
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n`)
  process.exit(1)
}
