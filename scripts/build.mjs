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
import { spawnSync } from 'node:child_process'
import { existsSync, renameSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { build } from 'esbuild'

const root = new URL('..', import.meta.url).pathname
const next = join(root, `.dist-${process.pid}`)
const old = join(root, `.dist-old-${process.pid}`)
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc')
const check = process.argv.includes('--no-check') ? ['--noCheck'] : []

/** The public entry points, the compile child `craft serve` spawns, and the handler the in-process benchmark drives. */
const ENTRY_POINTS = ['index', 'auth/index', 'api/index', 'cli/index', 'testing/index', 'client/index', 'cli/compile-app-child', 'http/request-handler']

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
const dist = join(root, 'dist')
if (existsSync(dist)) renameSync(dist, old)
renameSync(next, dist)
rmSync(old, { recursive: true, force: true })
