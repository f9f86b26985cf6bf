import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { isLoopback, passkeyNotice, serveNotices } from './serve-notices.js'

const notices = (host: string, port: number, env: Record<string, string>, given: Record<string, string> = {}) => serveNotices({ host, port, env, given })

describe('serveNotices', () => {
  it('isLoopback: 127.x, ::1 and localhost only', () => {
    for (const h of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]']) assert.equal(isLoopback(h), true, h)
    for (const h of ['0.0.0.0', '::', '192.168.1.5', 'example.com']) assert.equal(isLoopback(h), false, h)
  })

  it('warns about APP_DEBUG=true off loopback or in production, never otherwise', () => {
    assert.match(notices('0.0.0.0', 0, { APP_DEBUG: 'true' }).warnings.join(), /APP_DEBUG=true while serving on 0\.0\.0\.0/)
    assert.match(notices('::', 0, { APP_DEBUG: 'true' }).warnings.join(), /APP_DEBUG=true/)
    assert.match(notices('127.0.0.1', 0, { APP_DEBUG: 'true', APP_ENV: 'production' }).warnings.join(), /APP_ENV=production/)
    assert.deepEqual(notices('127.0.0.1', 0, { APP_DEBUG: 'true', APP_ENV: 'local' }).warnings, [])
    assert.deepEqual(notices('0.0.0.0', 0, { APP_DEBUG: 'false' }).warnings, [])
  })

  it('the generated APP_URL follows --port; a chosen local one on another port is a warning', () => {
    const follows = notices('127.0.0.1', 8001, { APP_URL: 'http://localhost:8000' })
    assert.equal(follows.appUrl, 'http://localhost:8001')
    assert.deepEqual(follows.warnings, [])
    assert.equal(notices('127.0.0.1', 8001, {}).appUrl, 'http://localhost:8001', 'unset: the config default follows too')
    assert.equal(notices('127.0.0.1', 8001, { APP_URL: 'http://127.0.0.1:8000' }).appUrl, 'http://127.0.0.1:8001', 'the generated value of apps made before follows too')
    assert.equal(notices('127.0.0.1', 8000, { APP_URL: 'http://localhost:8000' }).appUrl, undefined)
    assert.equal(notices('127.0.0.1', 0, { APP_URL: 'http://localhost:8000' }).appUrl, undefined, 'port 0 is never compared')
    const given = notices('127.0.0.1', 8001, { APP_URL: 'http://127.0.0.1:8000' }, { APP_URL: 'http://127.0.0.1:8000' })
    assert.equal(given.appUrl, undefined)
    assert.match(given.warnings.join(), /APP_URL is http:\/\/127\.0\.0\.1:8000 but the server listens on port 8001.*Set APP_URL=http:\/\/127\.0\.0\.1:8001 in \.env, or serve with --port 8000/)
    assert.match(notices('0.0.0.0', 3000, { APP_URL: 'http://localhost' }).warnings.join(), /port 80,|port 80\b/)
    assert.deepEqual(notices('127.0.0.1', 3000, { APP_URL: 'https://example.com' }).warnings, [], 'a public URL is behind a proxy')
    assert.deepEqual(notices('127.0.0.1', 3000, { APP_URL: 'http://localhost:3000/' }).warnings, [])
    assert.match(notices('127.0.0.1', 3000, { APP_URL: 'not a url' }).warnings.join(), /not a URL/)
  })

  it('passkeyNotice: passkeys on and an IP address as APP_URL\'s host: a warning naming both and localhost', () => {
    assert.match(passkeyNotice('http://127.0.0.1:8000', true) ?? '', /^Passkeys are on .*APP_URL is http:\/\/127\.0\.0\.1:8000, an IP address.*Set APP_URL=http:\/\/localhost:8000 in \.env/)
    assert.match(passkeyNotice('http://[::1]:3000', true) ?? '', /Set APP_URL=http:\/\/localhost:3000/)
    assert.match(passkeyNotice('https://10.0.0.5', true) ?? '', /Set APP_URL=https:\/\/localhost /)
    assert.equal(passkeyNotice('http://127.0.0.1:8000', false), null, 'passkeys off')
    assert.equal(passkeyNotice('http://localhost:8000', true), null)
    assert.equal(passkeyNotice('https://example.com', true), null)
    assert.equal(passkeyNotice('not a url', true), null)
  })
})
