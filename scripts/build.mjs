#!/usr/bin/env node
// Builds dist/ without a window where it is missing or mixed with stale files: a fresh folder is
// written, which then replaces dist/ by two renames (other processes may be running the old build).
//
// Two tools write it. tsc type-checks and emits the declarations (`.d.ts`, beside where each
// module's source sits). esbuild bundles the JavaScript: one file per public entry point (the
// package's exports, plus the two files other processes run), the code they share in
// `dist/chunks/`, each lazily imported module in a chunk of its own. Every process that loads
// Trowel (a server, each craft command) then reads tens of files instead of about four hundred:
// about a third less CPU to start (bench/RESULTS.md, "Start-up"). Chunks sit two folders below the
// package root, as the sources do, and files of the package are found from its root
// (support/framework-root), never relative to a module.
//
// `--no-check` (npm's `prepare`, run by `npm install` and `npm pack`) emits the declarations
// without type-checking; `npm run build` and `npm run typecheck` still check.
//
// `--if-changed` (npm's `pretest`) leaves dist/ as it is when it was built from the same inputs:
// the non-test files under src/, this script, package.json, tsconfig.json and the versions of
// esbuild, TypeScript and zxcvbn's two packages, by path, size and modification time
// (dist/.inputs). `npm test` right
// after `npm install` then starts at once instead of building the same files again (about 4 s).
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { pathToFileURL } from 'node:url'
import { build } from 'esbuild'

const root = new URL('..', import.meta.url).pathname
const next = join(root, `.dist-${process.pid}`)
const old = join(root, `.dist-old-${process.pid}`)
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc')
const check = process.argv.includes('--no-check') ? ['--noCheck'] : []
const INPUTS = '.inputs'

/** What dist/ is built from, as one line per file: its path, size and modification time. */
function inputs() {
  const lines = []
  const add = (path) => {
    const stat = statSync(join(root, path))
    lines.push(`${path} ${stat.size} ${stat.mtimeMs}`)
  }
  for (const entry of readdirSync(join(root, 'src'), { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || /\.test\.ts$/.test(entry.name)) continue
    add(relative(root, join(entry.parentPath ?? entry.path, entry.name)))
  }
  for (const path of ['scripts/build.mjs', 'package.json', 'tsconfig.json', 'node_modules/esbuild/package.json', 'node_modules/typescript/package.json', 'node_modules/@zxcvbn-ts/core/package.json', 'node_modules/@zxcvbn-ts/language-common/package.json']) add(path)
  return lines.sort().join('\n') + '\n'
}

const built = inputs()
if (process.argv.includes('--if-changed')) {
  let previous = null
  try {
    previous = readFileSync(join(root, 'dist', INPUTS), 'utf8')
  } catch {
    // never built, or built before dist/.inputs existed
  }
  if (previous === built) {
    console.log('dist/ is up to date (its inputs have not changed since it was built)')
    process.exit(0)
  }
}

/** The public entry points, the compile child `craft serve` spawns, the handler the in-process benchmark drives, and the auth pages' script and the common-password list this build writes out (prebuildPageScript, prebuildCommonPasswords). */
const ENTRY_POINTS = ['index', 'auth/index', 'api/index', 'cli/index', 'testing/index', 'client/index', 'cli/compile-app-child', 'http/request-handler', 'auth/pages/page-bundle', 'auth/hashing/common-passwords']

function fail(status) {
  rmSync(next, { recursive: true, force: true })
  process.exit(status)
}

const declarations = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.json'), '--outDir', next, '--emitDeclarationOnly', ...check], { stdio: 'inherit' })
if (declarations.status !== 0) fail(declarations.status ?? 1)
try {
  await build({
    entryPoints: ENTRY_POINTS.map((entry) => join(root, 'src', `${entry}.ts`)),
    outdir: next,
    outbase: join(root, 'src'),
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20.19',
    // Dependencies stay imports of the installed packages.
    packages: 'external',
    // Class and function names as written (errors, middleware and providers are named by them).
    keepNames: true,
    chunkNames: 'chunks/[name]-[hash]',
    logLevel: 'warning',
  })
} catch {
  fail(1)
}
asciiOnly(next)
await prebuildPageScript(next)
await prebuildCommonPasswords(next)
writeFileSync(join(next, INPUTS), built)
const dist = join(root, 'dist')
if (existsSync(dist)) renameSync(dist, old)
renameSync(next, dist)
rmSync(old, { recursive: true, force: true })

/**
 * `GET /auth/pages.js`, bundled once here rather than by esbuild in every process that serves the
 * auth pages (auth/pages/page-bundle): `dist/assets/auth-pages.js`, its first line naming what it
 * was made from, so a process with other sources or versions builds its own instead.
 */
async function prebuildPageScript(dir) {
  const { buildPageScript, pageScriptHeader } = await import(pathToFileURL(join(dir, 'auth', 'pages', 'page-bundle.js')).href)
  mkdirSync(join(dir, 'assets'), { recursive: true })
  writeFileSync(join(dir, 'assets', 'auth-pages.js'), `${pageScriptHeader()}\n${await buildPageScript()}`)
}

/**
 * The policy's common-password list (auth/hashing/common-passwords), taken out of its compressed
 * package once here: `dist/assets/common-passwords.txt`, headed by the package's version.
 */
async function prebuildCommonPasswords(dir) {
  const { commonPasswordsHeader, extractCommonPasswords } = await import(pathToFileURL(join(dir, 'auth', 'hashing', 'common-passwords.js')).href)
  mkdirSync(join(dir, 'assets'), { recursive: true })
  writeFileSync(join(dir, 'assets', 'common-passwords.txt'), `${commonPasswordsHeader()}\n${extractCommonPasswords()}`)
}

/**
 * V8 keeps each module's source text in memory for as long as the module lives, as a one-byte
 * string when every character is Latin-1 and as a two-byte string (twice the size) otherwise.
 * esbuild already escapes strings and regular expressions (its ASCII charset); what remains are
 * characters such as `→` and `…` in the comments it keeps, which would double the largest chunks
 * (about 450 KB of every process's heap). On comment lines they are written as `\u` escapes,
 * which there are only text. Anywhere else (a `String.raw` template keeps its characters as
 * written) the build stops and names the line, to be escaped in the source.
 */
function asciiOnly(dir) {
  const comment = /^\s*(\/\/|\/\*|\*)/
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.js')) continue
    const file = join(entry.parentPath ?? entry.path, entry.name)
    const text = readFileSync(file, 'utf8')
    if (!/[^\x00-\x7f]/.test(text)) continue
    const lines = text.split('\n')
    for (const [i, line] of lines.entries()) {
      if (!/[^\x00-\x7f]/.test(line)) continue
      if (!comment.test(line)) {
        console.error(`${file}:${i + 1}: a non-ASCII character outside a comment (write it as a \\u escape in the source):\n${line}`)
        fail(1)
      }
      lines[i] = line.replace(/[^\x00-\x7f]/gu, (c) => `\\u{${c.codePointAt(0).toString(16)}}`)
    }
    writeFileSync(file, lines.join('\n'))
  }
}
