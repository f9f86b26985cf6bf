#!/usr/bin/env node
// Runs the whole suite with Node's test runner (TypeScript through tsx). Node 20 has no glob
// support in `--test`, so the files are listed here: `src/**/*.test.ts` (unit, next to the
// code) and `test/**/*.test.ts` (black-box). Arguments narrow the run to paths containing them.
import { readdirSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { spawnSync } from 'node:child_process'

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

const files = [...walk(join(root, 'src'), []), ...walk(join(root, 'test'), [])]
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort()
if (files.length === 0) {
  console.error('no test files matched')
  process.exit(1)
}
const args = ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-timeout=600000', ...passthrough, ...files]
const result = spawnSync(process.execPath, args, { stdio: 'inherit', cwd: root })
process.exit(result.status ?? 1)
