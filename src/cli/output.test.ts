import { test } from 'node:test'
import assert from 'node:assert/strict'
import { colorEnabled, colors, formatError, withProgress } from './output.js'
import { shouldRestart } from './commands/serve-command.js'

const tty = { isTTY: true, write: () => true }
const pipe = { isTTY: false, write: () => true }

test('colour only on a TTY, never with NO_COLOR or TERM=dumb', () => {
  assert.equal(colorEnabled(tty, {}), true)
  assert.equal(colorEnabled(pipe, {}), false)
  assert.equal(colorEnabled(tty, { NO_COLOR: '1' }), false)
  assert.equal(colorEnabled(tty, { NO_COLOR: '' }), true)
  assert.equal(colorEnabled(tty, { TERM: 'dumb' }), false)
  assert.equal(colors(tty, {}).green('ok'), '\x1b[32mok\x1b[39m')
  assert.equal(colors(tty, { NO_COLOR: 'yes' }).green('ok'), 'ok')
  assert.equal(colors(pipe, {}).red('error:'), 'error:')
})

test('withProgress draws a line only on a TTY and only after the delay, then erases it', async () => {
  const written: string[] = []
  const stream = { isTTY: true, write: (s: string) => written.push(s) }
  assert.equal(await withProgress('Quick', async () => 1, { stream, delayMs: 200 }), 1)
  assert.equal(written.length, 0)
  await withProgress('Slow step', () => new Promise((r) => setTimeout(r, 120)), { stream, delayMs: 20 })
  assert.ok(written.some((s) => s.includes('Slow step')), 'progress line shown')
  assert.equal(written.at(-1), '\r\x1b[K', 'line erased at the end')
  const piped: string[] = []
  await withProgress('Slow step', () => new Promise((r) => setTimeout(r, 60)), { stream: { isTTY: false, write: (s: string) => piped.push(s) }, delayMs: 10 })
  assert.equal(piped.length, 0)
})

test('formatError keeps one line and turns an esbuild transform error into file:line: message', () => {
  const error = new Error('Could not load routes/web.ts: Transform failed with 1 error:\n/srv/app/routes/web.ts:3:7: ERROR: Expected ";" but found "x"')
  assert.equal(formatError(error, '/srv/app'), 'Could not load routes/web.ts: routes/web.ts:3:7: Expected ";" but found "x"')
  assert.equal(formatError(new Error('one\ntwo'), null), 'one')
})

test('serve --watch restarts for sources, templates and .env, not for data, logs or dependencies', () => {
  for (const f of ['routes/web.ts', 'Kernel.ts', 'app/controllers/A.ts', 'templates/auth/home.html', '.env', 'config/x.mjs', 'package.json']) assert.equal(shouldRestart(f), true, f)
  for (const f of ['storage/database.sqlite-wal', 'storage/logs/mail.log', 'node_modules/x/index.js', 'tests/a.test.ts', '.git/index', 'types/x.d.ts', 'README.md']) assert.equal(shouldRestart(f), false, f)
})
