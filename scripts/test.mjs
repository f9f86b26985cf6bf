#!/usr/bin/env node
// Runs the whole suite with Node's test runner. Node 20 has no glob support in `--test`, so the
// files are listed here: `src/**/*.test.ts` (unit, next to the code) and `test/**/*.test.ts`
// (black-box). Arguments narrow the run to paths containing them.
//
// The test files are compiled first, all in one esbuild run, to JavaScript the runner starts
// without a TypeScript loader (see `compileTests`). `TEST_TSX=1` runs the `.ts` files through tsx
// instead, as `node --import tsx --test <file>` does for one file.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statfsSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { spawnSync } from 'node:child_process'
import { build } from 'esbuild'

const root = new URL('..', import.meta.url).pathname
const filters = process.argv.slice(2).filter((a) => !a.startsWith('--'))
const passthrough = process.argv.slice(2).filter((a) => a.startsWith('--'))

function walk(dir, out) {
  let entries
  try { entries = readdirSync(dir) } catch { return out }
  for (const name of entries) {
    if (name === 'node_modules' || name === 'fixtures' || name.startsWith('.')) continue
    const path = join(dir, name)
    if (statSync(path).isDirectory()) walk(path, out)
    else if (name.endsWith('.test.ts')) out.push(relative(root, path))
  }
  return out
}

// Longest first, so the last files to finish are short ones: the browser files (tens of seconds
// each), then the other black-box files (apps and servers), then the unit tests.
const rank = (f) => (f.startsWith('test/browser/') ? 0 : f.startsWith('test/') ? 1 : 2)
const files = [...walk(join(root, 'src'), []), ...walk(join(root, 'test'), [])]
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0))
if (files.length === 0) {
  console.error('no test files matched')
  process.exit(1)
}
// Four files at once on any machine: a black-box file spends much of its time waiting on the
// servers, browsers and commands it started. On a 2-core machine, with the files compiled, three
// at once kept the cores 78 % busy (357 s); four, 96 % (347 s). TEST_CONCURRENCY overrides it.
const concurrency = Number(process.env.TEST_CONCURRENCY) || 4

/**
 * Under tsx each test file's process pays about 0.2 s of CPU to start tsx's loader thread, and
 * more for every module it then loads through it: the test files' own processes took 218 CPU-s
 * of a run under tsx and 129 compiled. So the files are bundled once per run by esbuild (tsx's
 * own compiler), one self-contained file per test file (no shared chunks: esbuild's code
 * splitting can change the order in which modules' top-level code runs), into a folder under
 * `node_modules/.cache`, where the packages they import resolve as they do from the sources.
 * `import.meta.url`, `.dirname` and `.filename` keep their values in the source file (each module
 * is given its own), so a test finds its fixtures, the repository and the built package as it
 * does under tsx; stack traces point at the `.ts` lines through source maps. A module loaded by
 * a path known only at run time (migrations a test writes) still needs tsx, which such a test
 * registers when `TROWEL_TEST_COMPILED=1`. Returns the compiled files, in the order of `files`.
 */
async function compileTests(files, outdir) {
  const SOURCE = /\.m?[jt]s$/
  const importMeta = {
    name: 'import-meta-of-the-source',
    setup(b) {
      // Only the repository's own files get here: packages stay imports (`packages: 'external'`).
      b.onLoad({ filter: SOURCE }, (args) => {
        const text = readFileSync(args.path, 'utf8')
        // A `#!` line stays first.
        const hashbang = text.startsWith('#!') ? text.slice(0, text.indexOf('\n') + 1) : ''
        const source = text.slice(hashbang.length)
        const meta =
          `const __meta_url = ${JSON.stringify(pathToFileURL(args.path).href)}, ` +
          `__meta_filename = ${JSON.stringify(args.path)}, __meta_dirname = ${JSON.stringify(dirname(args.path))};`
        return { contents: `${hashbang}${meta}${source}`, loader: /\.m?ts$/.test(args.path) ? 'ts' : 'js' }
      })
      // The package's own name resolves from its folder, not from the cache's.
      b.onResolve({ filter: /^trowel(\/|$)/ }, (args) => ({ path: fileURLToPath(import.meta.resolve(args.path)), external: true }))
    },
  }
  // Node's runner starts the files it is given in the order of their paths, not of its arguments:
  // each bundle's path starts with its place in `files`, so they run in that order.
  const place = (i) => String(i).padStart(4, '0')
  await build({
    entryPoints: files.map((f, i) => ({ in: join(root, f), out: join(place(i), f.replace(/\.ts$/, '')) })),
    outdir,
    outbase: root,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20.19',
    packages: 'external',
    keepNames: true,
    sourcemap: 'linked',
    sourcesContent: false,
    define: { 'import.meta.url': '__meta_url', 'import.meta.filename': '__meta_filename', 'import.meta.dirname': '__meta_dirname' },
    plugins: [importMeta],
    logLevel: 'warning',
  })
  // ES modules, as the sources are (the package's `"type": "module"` does not reach into node_modules).
  writeFileSync(join(outdir, 'package.json'), '{ "type": "module" }\n')
  return files.map((f, i) => join(outdir, place(i), f.replace(/\.ts$/, '.js')))
}

/**
 * The unit test files (`src/`), compiled, run `groups` processes between them instead of one each:
 * a process's start (Node itself, then the packages the file imports) costs more CPU than most unit
 * files' tests. Each group is a file of suites, one per source file, named by its path, that
 * imports the file's compiled bundle: its tests, and its top-level hooks, stay in that suite, and
 * the suites run one after another. Each bundle keeps its own copy of the repository's modules;
 * what the files share in a group is Node and the packages. The black-box files (`test/`) keep a
 * process each. Returns `run` with the unit files replaced by the groups, which come last.
 */
function groupUnitFiles(files, run, outdir, groups) {
  const units = files.flatMap((f, i) => (f.startsWith('src/') ? [i] : []))
  if (units.length < 2) return run
  const count = Math.min(groups, units.length)
  const entries = Array.from({ length: count }, () => [])
  units.forEach((i, n) => entries[n % count].push(i))
  const grouped = entries.map((members, k) => {
    const path = join(outdir, String(files.length + k).padStart(4, '0'), `unit-tests-${k + 1}-of-${count}.js`)
    const suites = members.map((i) => `describe(${JSON.stringify(files[i])}, () => import(${JSON.stringify(pathToFileURL(run[i]).href)}))\n`)
    mkdirSync(dirname(path), { recursive: true })
    writeFileSync(path, `import { describe } from 'node:test'\n${suites.join('')}`)
    return path
  })
  return [...run.filter((_, i) => !files[i].startsWith('src/')), ...grouped]
}

/** Whether /dev/shm (memory) exists with 4 GiB free: a run's files peak well under that. */
function roomInMemory() {
  try {
    const fs = statfsSync('/dev/shm')
    return fs.bavail * fs.bsize >= 4 * 1024 ** 3
  } catch {
    return false
  }
}

const tsx = process.env.TEST_TSX === '1'
const cache = join(root, 'node_modules', '.cache')
mkdirSync(cache, { recursive: true })
/** Removes what a run killed before its cleanup left in `dir` (a run's folders live far less than a day). */
function removeLeftovers(dir, prefix) {
  let names
  try {
    names = readdirSync(dir)
  } catch {
    return
  }
  for (const name of names) {
    const path = join(dir, name)
    if (name.startsWith(prefix) && Date.now() - statSync(path).mtimeMs > 24 * 3600 * 1000) rmSync(path, { recursive: true, force: true })
  }
}
removeLeftovers(cache, 'trowel-tests-')
removeLeftovers('/dev/shm', 'trowel-test-')
// Ctrl-C reaches the runner too: this process waits for it to stop, then removes the run's folders.
process.on('SIGINT', () => {})
const compiled = tsx ? null : mkdtempSync(join(cache, 'trowel-tests-'))
let status
// The run's temporary files (the apps the black-box tests make, their SQLite databases, browser
// profiles) go to a folder of its own in memory when the machine has room there and TMPDIR does
// not say otherwise: writing them to a disk took the cores about 8 % more time (test/accounts,
// 2 cores, two runs each way: 65-66 s against 57-61 s, a quarter less system time).
const temporary = !process.env.TMPDIR && roomInMemory() ? mkdtempSync('/dev/shm/trowel-test-') : null
// The black-box harness copies new apps from `craft new`'s and `craft auth`'s output made once in
// this folder for the run (test/helpers/app-harness.ts), instead of running both for every app.
const templates = mkdtempSync(join(temporary ?? tmpdir(), 'trowel-templates-'))
try {
  const run = compiled ? groupUnitFiles(files, await compileTests(files, compiled), compiled, concurrency) : files
  const loader = compiled ? ['--enable-source-maps'] : ['--import', 'tsx']
  // Into a log (not a terminal), Node's TAP report, then the failed tests again at its end
  // (scripts/test-failures.mjs). A --test-reporter argument replaces both.
  const reporters =
    process.stdout.isTTY || passthrough.some((a) => a.startsWith('--test-reporter'))
      ? []
      : ['--test-reporter=tap', '--test-reporter-destination=stdout', `--test-reporter=${join(root, 'scripts', 'test-failures.mjs')}`, '--test-reporter-destination=stdout']
  const args = [...loader, '--test', `--test-concurrency=${concurrency}`, '--test-timeout=600000', ...reporters, ...passthrough, ...run]
  const env = { ...process.env, TROWEL_TEST_TEMPLATES: templates, ...(compiled ? { TROWEL_TEST_COMPILED: '1' } : {}), ...(temporary ? { TMPDIR: temporary } : {}) }
  status = spawnSync(process.execPath, args, { stdio: 'inherit', cwd: root, env }).status
} finally {
  rmSync(templates, { recursive: true, force: true })
  if (compiled) rmSync(compiled, { recursive: true, force: true })
  if (temporary) rmSync(temporary, { recursive: true, force: true })
}
process.exit(status ?? 1)
