#!/usr/bin/env node
// Builds dist/ without a window where it is missing or mixed with stale files: tsc writes a fresh
// folder, which then replaces dist/ by two renames (other processes may be running the old build).
// `--no-check` (npm's `prepare`, run by `npm install` and `npm pack`) emits without type-checking:
// the same files (declarations included) for about a quarter less CPU; `npm run build` and
// `npm run typecheck` still check.
import { spawnSync } from 'node:child_process'
import { existsSync, renameSync, rmSync } from 'node:fs'
import { join } from 'node:path'

const root = new URL('..', import.meta.url).pathname
const next = join(root, `.dist-${process.pid}`)
const old = join(root, `.dist-old-${process.pid}`)
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc')
const check = process.argv.includes('--no-check') ? ['--noCheck'] : []
const result = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.json'), '--outDir', next, ...check], { stdio: 'inherit' })
if (result.status !== 0) {
  rmSync(next, { recursive: true, force: true })
  process.exit(result.status ?? 1)
}
const dist = join(root, 'dist')
if (existsSync(dist)) renameSync(dist, old)
renameSync(next, dist)
rmSync(old, { recursive: true, force: true })
