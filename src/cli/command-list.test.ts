import { test } from 'node:test'
import assert from 'node:assert/strict'
import { COMMANDS, commandsFor } from './command-list.js'

test('a command loads its own module only; --version none; help and unknown names every one', () => {
  assert.deepEqual(commandsFor('migration').map((c) => c.names), [['migration']])
  assert.deepEqual(commandsFor('migrate:status').map((c) => c.names), [['migrate', 'migrate:rollback', 'migrate:status', 'migrate:refresh']])
  assert.deepEqual(commandsFor('--version'), [])
  assert.deepEqual(commandsFor('-V'), [])
  assert.equal(commandsFor('--help'), COMMANDS)
  assert.equal(commandsFor(undefined), COMMANDS)
  assert.equal(commandsFor('migrat'), COMMANDS)
})

test('every command name is listed once', () => {
  const names = COMMANDS.flatMap((c) => c.names)
  assert.equal(new Set(names).size, names.length)
})

test('each entry registers exactly the names it lists', async () => {
  const { Command } = await import('commander')
  for (const entry of COMMANDS) {
    const program = new Command()
    const ctx = { appRoot: null, out: () => undefined, requireApp: () => '', boot: async () => undefined } as never
    for (const register of await entry.load()) register(program, ctx)
    assert.deepEqual(program.commands.map((c) => c.name()).sort(), [...entry.names].sort(), entry.names.join(', '))
  }
})
