#!/usr/bin/env node
// Runs the whole suite with Node's test runner (TypeScript through tsx). Node 20 has no glob
// support in `--test`, so the files are listed here: `src/**/*.test.ts` (unit, next to the
// code) and `test/**/*.test.ts` (black-box). Arguments narrow the run to paths containing them.
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
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
// Three files at once on any machine: a black-box file spends much of its time waiting on the
// servers, browsers and commands it started, so a third keeps two cores busy (measured: 150 % of
// two cores used with two at once). TEST_CONCURRENCY overrides it.
const concurrency = Number(process.env.TEST_CONCURRENCY) || 3
const args = ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, '--test-timeout=600000', ...passthrough, ...files]
// The black-box harness copies new apps from `craft new`'s and `craft auth`'s output made once in
// this folder for the run (test/helpers/app-harness.ts), instead of running both for every app.
const templates = mkdtempSync(join(tmpdir(), 'trowel-templates-'))
const result = spawnSync(process.execPath, args, { stdio: 'inherit', cwd: root, env: { ...process.env, TROWEL_TEST_TEMPLATES: templates } })
rmSync(templates, { recursive: true, force: true })
process.exit(result.status ?? 1)
