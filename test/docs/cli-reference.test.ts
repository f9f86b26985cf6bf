/**
 * docs/cli.md is generated from craft's commander definitions (scripts/cli-reference.mjs); this
 * fails when someone changes a command or an option without regenerating it.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { ROOT, runNode } from '../helpers/app-harness.js'

test('docs/cli.md matches the commander definitions (node scripts/cli-reference.mjs --check)', () => {
  const r = runNode(['scripts/cli-reference.mjs', '--check'], { cwd: ROOT })
  assert.equal(r.code, 0, r.stderr + r.stdout)
})
