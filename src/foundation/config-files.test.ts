import { test } from 'node:test'
import assert from 'node:assert/strict'
import { Application } from './application.js'
import { appName, appUrl, inProduction, DEFAULT_APP_URL } from './config-files.js'

function withEnv(env: Record<string, string | undefined>, run: () => void): void {
  const before = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]))
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete process.env[k]
  else process.env[k] = v
  try {
    run()
  } finally {
    for (const [k, v] of Object.entries(before)) if (v === undefined) delete process.env[k]
    else process.env[k] = v
  }
}

test('the app URL, name and environment: config/application.ts, else the environment, else the defaults', () => {
  const bare = new Application('/tmp/no-app')
  withEnv({ APP_URL: undefined, APP_NAME: undefined, APP_ENV: undefined }, () => {
    assert.equal(appUrl(bare), DEFAULT_APP_URL)
    assert.equal(DEFAULT_APP_URL, 'http://localhost:8000', 'localhost: WebAuthn refuses an IP address')
    assert.equal(appName(bare), 'Trowel')
    assert.equal(inProduction(bare), false)
  })
  withEnv({ APP_URL: 'https://env.example/', APP_NAME: 'Env', APP_ENV: 'Production' }, () => {
    assert.equal(appUrl(bare), 'https://env.example', 'no trailing slash')
    assert.equal(appName(bare), 'Env')
    assert.equal(inProduction(bare), true)
    const configured = new Application('/tmp/no-app')
    configured.setConfig('application', { APPLICATION: { url: 'https://app.example//', name: 'Mine', env: 'local' } })
    assert.equal(appUrl(configured), 'https://app.example', 'the config file wins')
    assert.equal(appName(configured), 'Mine')
    assert.equal(inProduction(configured), false)
  })
})
