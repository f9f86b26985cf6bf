/**
 * trowel/testing, black-box: a new app's own `npm test` (`node craft test`) passes as generated,
 * and again once web auth and the JWT API are installed by the seed's steps, without touching
 * the app's development database, and without printing the mails it sends (they are kept in
 * memory for the tests' assertions).
 */
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { newApp, runNode, type TestApp } from '../helpers/app-harness.js'
import { applyApiSteps, applyAuthSteps } from '../helpers/seed-steps.js'
import { testDriver } from '../helpers/databases.js'

let app: TestApp

before(async () => {
  app = await newApp()
})

after(async () => {
  await app.cleanup()
})

function counts(output: string) {
  // TAP (`# pass 3`, Node 20 and 22 when piped) or the spec reporter (`ℹ pass 3`, Node 23+).
  const n = (name: string) => Number(new RegExp(`^(?:#|ℹ) ${name} (\\d+)`, 'm').exec(output)?.[1] ?? NaN)
  return { pass: n('pass'), fail: n('fail'), skipped: n('skipped') }
}

test('craft new writes tests/example.test.ts and an npm test script that runs it', () => {
  assert.ok(app.exists('tests/example.test.ts'))
  assert.equal(JSON.parse(app.read('package.json')).scripts.test, 'node craft test')
})

test("a new app's own tests pass (the auth and API ones skip until installed)", () => {
  const r = app.craft('test')
  assert.equal(r.code, 0, r.stdout + r.stderr)
  assert.deepEqual(counts(r.stdout), { pass: 3, fail: 0, skipped: 3 })
  if (testDriver() === 'sqlite') assert.equal(existsSync(join(app.dir, 'storage/database.sqlite')), false, 'tests must not create the development database')
})

test('with web auth and the JWT API installed, npm test inside the app runs every example test and passes', () => {
  applyAuthSteps(app)
  applyApiSteps(app)
  // npm test = node craft test; run npm itself when it sits next to this node, craft test otherwise.
  const npmCli = join(process.execPath, '..', '..', 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js')
  const r = existsSync(npmCli) ? runNode([npmCli, 'test'], { cwd: app.dir, env: app.env, timeout: 90_000 }) : app.craft('test')
  assert.equal(r.code, 0, r.stdout + r.stderr)
  assert.deepEqual(counts(r.stdout), { pass: 6, fail: 0, skipped: 0 })
  // The registration test waits for its verification mail in memory: nothing is printed.
  assert.doesNotMatch(r.stdout + r.stderr, /Mail \(terminal driver\)|Subject: Verify/)
})

test('a failing app test makes craft test fail; --grep narrows the run', () => {
  app.write('tests/failing.test.ts', "import { test } from 'node:test'\nimport assert from 'node:assert'\ntest('deliberately failing', () => { assert.equal(1, 2) })\n")
  const failed = app.craft('test', 'tests/failing.test.ts')
  assert.notEqual(failed.code, 0)
  assert.equal(counts(failed.stdout).fail, 1)
  const narrowed = app.craft('test', '--grep', 'welcome', 'tests/example.test.ts')
  assert.equal(narrowed.code, 0, narrowed.stdout + narrowed.stderr)
  assert.equal(counts(narrowed.stdout).pass, 1)
})
