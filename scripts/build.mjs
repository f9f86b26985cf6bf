#!/usr/bin/env node
// Builds dist/ without a window where it is missing or mixed with stale files: tsc writes a fresh
// folder, which then replaces dist/ by two renames (other processes may be running the old build).
import { spawnSync } from 'node:child_process'
import { existsSync, renameSync, rmSync } from 'node:fs'
import { join } from 'node:path'

const root = new URL('..', import.meta.url).pathname
const next = join(root, `.dist-${process.pid}`)
const old = join(root, `.dist-old-${process.pid}`)
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc')
const result = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.json'), '--outDir', next], { stdio: 'inherit' })
if (result.status !== 0) {
  rmSync(next, { recursive: true, force: true })
  process.exit(result.status ?? 1)
}
const dist = join(root, 'dist')
if (existsSync(dist)) renameSync(dist, old)
renameSync(next, dist)
rmSync(old, { recursive: true, force: true })
