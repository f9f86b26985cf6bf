import { afterEach, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { redisPrefix, throttleDriver } from './create-throttle-store.js'
import { connectionForUrl, loadEnvironment } from '../../foundation/bootstrap.js'

const KEYS = ['THROTTLE_DRIVER', 'SESSION_DRIVER', 'REDIS_URL', 'DB_CONNECTION', 'DATABASE_URL', 'TROWEL_WORKERS']
const saved = Object.fromEntries(KEYS.map((k) => [k, process.env[k]]))

function withEnv(vars: Record<string, string>): void {
  for (const k of KEYS) delete process.env[k]
  Object.assign(process.env, vars)
}

afterEach(() => {
  for (const k of KEYS) {
    if (saved[k] === undefined) delete process.env[k]
    else process.env[k] = saved[k]
  }
})

describe('throttleDriver(): where failed logins are counted', () => {
  it('one process on SQLite counts in memory', () => {
    withEnv({ DB_CONNECTION: 'sqlite' })
    assert.equal(throttleDriver(), 'memory')
  })
  it('THROTTLE_DRIVER wins over everything', () => {
    withEnv({ THROTTLE_DRIVER: 'memory', REDIS_URL: 'redis://x', DB_CONNECTION: 'postgres', SESSION_DRIVER: 'redis' })
    assert.equal(throttleDriver(), 'memory')
  })
  it('a shared session driver is followed', () => {
    withEnv({ SESSION_DRIVER: 'database', REDIS_URL: 'redis://x' })
    assert.equal(throttleDriver(), 'database')
  })
  it('REDIS_URL alone means redis', () => {
    withEnv({ SESSION_DRIVER: 'cookie', REDIS_URL: 'redis://10.0.0.5:6379' })
    assert.equal(throttleDriver(), 'redis')
  })
  it('a database server means the database (other processes may share it)', () => {
    for (const c of ['postgres', 'pg', 'mysql', 'mariadb']) {
      withEnv({ DB_CONNECTION: c })
      assert.equal(throttleDriver(), 'database', c)
    }
  })
  it('several workers on SQLite use the database', () => {
    withEnv({ DB_CONNECTION: 'sqlite', TROWEL_WORKERS: '2' })
    assert.equal(throttleDriver(), 'database')
  })
})

describe('DATABASE_URL picks the connection', () => {
  it('by scheme', () => {
    assert.equal(connectionForUrl('postgres://u@h/db'), 'postgres')
    assert.equal(connectionForUrl('postgresql://u@h/db'), 'postgres')
    assert.equal(connectionForUrl('mysql://root@h/db'), 'mysql')
    assert.equal(connectionForUrl('mariadb://root@h/db'), 'mysql')
    assert.equal(connectionForUrl('sqlite://x'), undefined)
    assert.equal(connectionForUrl(undefined), undefined)
  })

  it("over .env's DB_CONNECTION=sqlite when only DATABASE_URL is in the environment", () => {
    const dir = mkdtempSync(join(tmpdir(), 'trowel-env-'))
    try {
      writeFileSync(join(dir, '.env'), 'DB_CONNECTION=sqlite\n')
      withEnv({ DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test' })
      loadEnvironment(dir)
      assert.equal(process.env.DB_CONNECTION, 'postgres')

      withEnv({ DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test', DB_CONNECTION: 'sqlite' })
      loadEnvironment(dir)
      assert.equal(process.env.DB_CONNECTION, 'sqlite', 'an explicit DB_CONNECTION is kept')

      withEnv({})
      loadEnvironment(dir)
      assert.equal(process.env.DB_CONNECTION, 'sqlite', '.env applies without DATABASE_URL')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('redisPrefix(): budgets in a shared Redis belong to one app', () => {
  it('one APP_KEY, one prefix; another APP_KEY, another; the key itself never appears', () => {
    const key = 'base64:' + Buffer.alloc(32, 7).toString('base64')
    assert.equal(redisPrefix(key), redisPrefix(key))
    assert.match(redisPrefix(key), /^trowel:throttle:[0-9a-f]{16}:$/)
    assert.notEqual(redisPrefix(key), redisPrefix('base64:' + Buffer.alloc(32, 8).toString('base64')))
    assert.ok(!redisPrefix(key).includes(key.slice(7, 20)))
    assert.equal(redisPrefix(undefined), 'trowel:throttle:default:')
  })
})
