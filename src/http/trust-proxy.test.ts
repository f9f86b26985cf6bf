import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { forwardedClient, trustedProxyHops } from './trust-proxy.js'

describe('TRUST_PROXY', () => {
  it('reads off, true and a hop count', () => {
    for (const off of [undefined, '', '0', 'false', 'no', 'off', 'maybe', '-1']) assert.equal(trustedProxyHops(off), 0, String(off))
    for (const one of ['1', 'true', 'TRUE', 'yes', 'on']) assert.equal(trustedProxyHops(one), 1, one)
    assert.equal(trustedProxyHops('2'), 2)
  })

  it('takes the entry the outermost trusted proxy appended; what the client wrote before it is never believed', () => {
    assert.equal(forwardedClient('203.0.113.7', 1), '203.0.113.7')
    assert.equal(forwardedClient('10.0.0.1, 203.0.113.7', 1), '203.0.113.7')
    assert.equal(forwardedClient('10.0.0.1, 203.0.113.7, 192.0.2.10', 2), '203.0.113.7')
    assert.equal(forwardedClient('203.0.113.7', 3), '203.0.113.7')
    assert.equal(forwardedClient(' , ', 1), undefined)
    assert.equal(forwardedClient(undefined, 1), undefined)
    assert.equal(forwardedClient('203.0.113.7', 0), undefined)
  })
})
