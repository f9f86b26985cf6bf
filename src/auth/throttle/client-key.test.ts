import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { clientKey } from './client-key.js'

describe('clientKey: the client a budget counts', () => {
  it('an IPv4 address is itself', () => {
    assert.equal(clientKey('203.0.113.9'), '203.0.113.9')
    assert.equal(clientKey('127.0.0.1'), '127.0.0.1')
  })

  it('an IPv4-mapped IPv6 address is its IPv4 address (dotted or hex)', () => {
    assert.equal(clientKey('::ffff:203.0.113.9'), '203.0.113.9')
    assert.equal(clientKey('::FFFF:203.0.113.9'), '203.0.113.9')
    assert.equal(clientKey('::ffff:cb00:7109'), '203.0.113.9')
    assert.equal(clientKey('0:0:0:0:0:ffff:203.0.113.9'), '203.0.113.9')
  })

  it('an IPv6 address is its /64, whatever its spelling', () => {
    const key = '2001:db8:1:2::/64'
    for (const address of [
      '2001:db8:1:2::1',
      '2001:db8:1:2:ffff:ffff:ffff:ffff',
      '2001:0DB8:0001:0002:0000:0000:0000:0009',
      '2001:db8:1:2:aaaa::1',
      '2001:db8:1:2:0:0:192.0.2.1',
      '2001:db8:1:2::%eth0',
    ]) {
      assert.equal(clientKey(address), key, address)
    }
    assert.equal(clientKey('2001:db8:1:3::1'), '2001:db8:1:3::/64', 'the next /64 is another client')
    assert.equal(clientKey('::1'), '0:0:0:0::/64')
    assert.equal(clientKey('fe80::1%eth0'), 'fe80:0:0:0::/64')
    assert.equal(clientKey('2001:db8::'), '2001:db8:0:0::/64')
    assert.equal(clientKey('1:2:3:4:5:6:7::'), '1:2:3:4::/64')
    assert.equal(clientKey('::2:3:4:5:6:7:8'), '0:2:3:4::/64')
  })

  it('anything else is kept as it is', () => {
    for (const odd of ['unknown', '', 'not an address', '2001:db8::1::2', '999.1.1.1']) assert.equal(clientKey(odd), odd.trim())
  })
})
