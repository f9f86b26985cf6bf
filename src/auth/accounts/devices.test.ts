/**
 * The devices page's readable client names ("Firefox 132 on Windows"), the activity page's event
 * wording, and the device registry's order and id dispatch.
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { describeUserAgent, DeviceRegistry, formatWhen, type Device, type DeviceSource } from './devices.js'
import { describeEvent } from '../account-pages/activity-forms.js'

describe('describeUserAgent', () => {
  const cases: [string, string][] = [
    ['Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:132.0) Gecko/20100101 Firefox/132.0', 'Firefox 132 on Windows'],
    ['Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36', 'Chrome 131 on macOS'],
    ['Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1', 'Safari 17 on iOS'],
    ['Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.81 Mobile Safari/537.36', 'Chrome 131 on Android'],
    ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.2903.86', 'Microsoft Edge 131 on Windows'],
    ['Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0', 'Firefox 128 on Linux'],
  ]
  for (const [ua, expected] of cases) {
    it(`${expected}`, () => assert.equal(describeUserAgent(ua), expected))
  }

  it('a client that is no browser is named by its first token', () => {
    assert.equal(describeUserAgent('curl/8.5.0'), 'curl/8.5.0')
    assert.equal(describeUserAgent('node'), 'node')
  })

  it('no user agent, or nothing recognisable, says so', () => {
    assert.equal(describeUserAgent(null), 'Unknown device')
    assert.equal(describeUserAgent(undefined), 'Unknown device')
    assert.equal(describeUserAgent('   '), 'Unknown device')
    assert.equal(describeUserAgent('Mozilla/5.0'), 'Unknown browser')
  })

  it('odd or huge input is text of bounded size, never an exception', () => {
    const long = describeUserAgent('x'.repeat(100_000))
    assert.ok(long.length <= 60, long)
    assert.equal(typeof describeUserAgent('<script>alert(1)</script>'), 'string')
    assert.equal(typeof describeUserAgent('\u0000\uffff(;;;)'), 'string')
  })
})

describe('describeEvent', () => {
  it('words known events plainly', () => {
    assert.equal(describeEvent('auth:login_succeeded'), 'Signed in')
    assert.equal(describeEvent('auth:login_failed'), 'Failed sign-in')
    assert.equal(describeEvent('auth:password_changed'), 'Password changed')
    assert.equal(describeEvent('auth:device_revoked', { device: '12' }), 'Device logged out')
    assert.equal(describeEvent('auth:device_revoked', { device: 'others' }), 'All other devices logged out')
  })

  it('words an unknown event from its name', () => {
    assert.equal(describeEvent('auth:something_new'), 'Something new')
    assert.equal(describeEvent('auth:'), 'Event')
  })
})

describe('formatWhen', () => {
  it('is UTC to the minute', () => {
    assert.equal(formatWhen(new Date('2025-01-31T14:05:59Z')), '2025-01-31 14:05 UTC')
    assert.equal(formatWhen(null), '—')
  })
})

describe('DeviceRegistry', () => {
  function device(id: string, kind: string, lastUsed: number, current = false): Device {
    return { id, kind, createdAt: new Date(0), lastUsedAt: new Date(lastUsed), ip: null, userAgent: null, client: 'x', current }
  }
  function source(kind: string, devices: Device[], pattern: RegExp): DeviceSource & { revoked: string[] } {
    const revoked: string[] = []
    return {
      kind,
      revoked,
      owns: (id) => pattern.test(id),
      list: async () => devices,
      revoke: async (_user, id) => {
        if (!devices.some((d) => d.id === id)) return null
        revoked.push(id)
        return { count: 1, current: false }
      },
    }
  }

  it('lists every source, this device first, then the most recently used', async () => {
    const registry = new DeviceRegistry()
    registry.register(source('web', [device('1', 'web', 100), device('2', 'web', 300, true)], /^\d+$/))
    registry.register(source('api', [device('api-1', 'api', 200)], /^api-\d+$/))
    const ids = (await registry.list(1, { currentLoginHash: null })).map((d) => d.id)
    assert.deepEqual(ids, ['2', 'api-1', '1'])
  })

  it('sends a revoke to the source that owns the id; none: null', async () => {
    const registry = new DeviceRegistry()
    const web = source('web', [device('1', 'web', 0)], /^\d+$/)
    const api = source('api', [device('api-1', 'api', 0)], /^api-\d+$/)
    registry.register(web)
    registry.register(api)
    assert.deepEqual(await registry.revoke(1, 'api-1', { currentLoginHash: null }), { count: 1, current: false })
    assert.deepEqual(api.revoked, ['api-1'])
    assert.deepEqual(web.revoked, [])
    assert.equal(await registry.revoke(1, '99', { currentLoginHash: null }), null)
    assert.equal(await registry.revoke(1, 'nope', { currentLoginHash: null }), null)
  })
})
