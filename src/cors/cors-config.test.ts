import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { resolveCorsConfig, serialisedOrigin } from './cors-config.js'

const appWith = (cors: unknown) => ({ config: <T>(name: string) => (name === 'cors' ? cors : undefined) as T | undefined })

describe('serialisedOrigin', () => {
  it('serialises an origin as a browser sends it', () => {
    assert.equal(serialisedOrigin('https://app.example.com'), 'https://app.example.com')
    assert.equal(serialisedOrigin(' HTTPS://App.Example.COM:443/ '), 'https://app.example.com')
    assert.equal(serialisedOrigin('http://localhost:5173'), 'http://localhost:5173')
    assert.equal(serialisedOrigin('http://[::1]:8000'), 'http://[::1]:8000')
  })

  it('is null for anything that is not exactly an origin', () => {
    for (const value of ['*', 'null', 'https://*.example.com', 'app.example.com', 'https://app.example.com/app', 'https://app.example.com?x=1',
      'https://app.example.com#top', 'https://user:pw@app.example.com', 'file:///tmp/x', 'capacitor://localhost', 'data:text/html,hi', '', '   ']) {
      assert.equal(serialisedOrigin(value), null, value)
    }
  })
})

describe('resolveCorsConfig', () => {
  it('is null without config/cors.ts, with no origins, and when CORS_ORIGINS is blank and the file lists none', () => {
    assert.equal(resolveCorsConfig(appWith(undefined), { CORS_ORIGINS: 'https://a.example' }), null)
    assert.equal(resolveCorsConfig(appWith({ CORS: { origins: [], credentials: false, max_age: 600 } }), {}), null)
    assert.equal(resolveCorsConfig(appWith({ CORS: { origins: [] } }), { CORS_ORIGINS: ' ' }), null)
  })

  it('reads the file with its defaults', () => {
    const config = resolveCorsConfig(appWith({ CORS: { origins: ['https://A.example/'] } }), {})!
    assert.deepEqual([...config.origins], ['https://a.example'])
    assert.equal(config.credentials, false)
    assert.equal(config.max_age, 600)
  })

  it('lets CORS_ORIGINS replace the origins, forgiving spaces and empty entries', () => {
    const config = resolveCorsConfig(appWith({ CORS: { origins: ['https://file.example'], credentials: true, max_age: 5 } }), {
      CORS_ORIGINS: ' https://one.example , http://localhost:3000,,',
    })!
    assert.deepEqual([...config.origins], ['https://one.example', 'http://localhost:3000'])
    assert.equal(config.credentials, true)
    assert.equal(config.max_age, 5)
  })

  it('stops the boot naming the file or the variable', () => {
    const cases: [unknown, Record<string, string>, RegExp][] = [
      [{ CORS: { origins: ['*'] } }, {}, /^config\/cors\.ts: CORS\.origins has "\*", which is not an origin/],
      [{ CORS: { origins: ['null'], credentials: true } }, {}, /config\/cors\.ts: CORS\.origins has "null"/],
      [{ CORS: { origins: [42] } }, {}, /config\/cors\.ts: CORS\.origins has 42/],
      [{ CORS: { origins: [''] } }, {}, /config\/cors\.ts: CORS\.origins has ""/],
      [{ CORS: { origins: 'https://a.example' } }, {}, /config\/cors\.ts: CORS\.origins must be an array/],
      [{ CORS: { origins: [] } }, { CORS_ORIGINS: 'https://a.example,*' }, /^CORS_ORIGINS has "\*"/],
      [{ CORS: { origins: [] } }, { CORS_ORIGINS: 'null' }, /^CORS_ORIGINS has "null"/],
      [{ CORS: { origins: ['https://a.example'], credentials: 'yes' } }, {}, /CORS\.credentials must be true or false/],
      [{ CORS: { origins: ['https://a.example'], max_age: -1 } }, {}, /CORS\.max_age must be a whole number/],
      [{ CORS: { origins: ['https://a.example'], max_age: 1.5 } }, {}, /CORS\.max_age must be a whole number/],
    ]
    for (const [file, env, message] of cases) {
      assert.throws(() => resolveCorsConfig(appWith(file), env), (error: Error & { code?: string }) => {
        assert.equal(error.code, 'E_CORS_CONFIG')
        assert.match(error.message, message)
        return true
      })
    }
  })
})
