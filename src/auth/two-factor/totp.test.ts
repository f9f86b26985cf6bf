import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Secret } from 'otpauth'
import { generateTotpSecret, groupSecret, matchTotp, otpauthUri, totpCode, totpCodeAt, totpStep } from './totp.js'

/** RFC 6238's SHA-1 seed, "12345678901234567890" in ASCII, as base32. */
const RFC_SECRET = Secret.fromLatin1('12345678901234567890').base32

describe('totp', () => {
  it('gives the RFC 6238 Appendix B SHA-1 codes (8 digits)', () => {
    const vectors: [number, string][] = [
      [59, '94287082'],
      [1111111109, '07081804'],
      [1111111111, '14050471'],
      [1234567890, '89005924'],
      [2000000000, '69279037'],
      [20000000000, '65353130'],
    ]
    for (const [seconds, expected] of vectors) {
      assert.equal(totpCodeAt(RFC_SECRET, seconds * 1000, { digits: 8 }), expected, `T = ${seconds}`)
      assert.equal(matchTotp(RFC_SECRET, expected, { at: seconds * 1000, digits: 8 }), Math.floor(seconds / 30), `T = ${seconds}`)
    }
  })

  it('gives the 6-digit codes apps show (the last 6 of the 8-digit ones)', () => {
    assert.equal(totpCodeAt(RFC_SECRET, 59_000), '287082')
    assert.equal(totpCodeAt(RFC_SECRET, 1111111109_000), '081804')
  })

  it('accepts the steps either side of now and no further', () => {
    const secret = generateTotpSecret()
    const now = 1_700_000_000_000
    const step = totpStep(now)
    for (const delta of [-1, 0, 1]) assert.equal(matchTotp(secret, totpCode(secret, step + delta), { at: now }), step + delta)
    for (const delta of [-3, -2, 2, 3]) {
      const code = totpCode(secret, step + delta)
      // A code of a far step can equal one in the window (1 in 10^6 each): skip that case.
      if ([-1, 0, 1].some((d) => totpCode(secret, step + d) === code)) continue
      assert.equal(matchTotp(secret, code, { at: now }), null, `delta ${delta}`)
    }
    assert.equal(matchTotp(secret, totpCode(secret, step), { at: now, window: 0 }), step)
  })

  it('refuses what is not a code of the right length', () => {
    const secret = generateTotpSecret()
    const code = totpCodeAt(secret, 1_700_000_000_000)
    for (const bad of ['', code.slice(1), code + '0', 'abcdef', ' ' + code.slice(1), '1e5000']) assert.equal(matchTotp(secret, bad, { at: 1_700_000_000_000 }), null, bad)
  })

  it('makes 160-bit base32 secrets, different each time', () => {
    const a = generateTotpSecret()
    assert.match(a, /^[A-Z2-7]{32}$/)
    assert.equal(Secret.fromBase32(a).bytes.length, 20)
    assert.notEqual(a, generateTotpSecret())
  })

  it('writes the otpauth URI authenticator apps scan', () => {
    const uri = otpauthUri({ issuer: 'My App', account: 'ada@example.com', secret: 'JBSWY3DPEHPK3PXP' })
    assert.equal(uri, 'otpauth://totp/My%20App:ada%40example.com?secret=JBSWY3DPEHPK3PXP&issuer=My%20App&algorithm=SHA1&digits=6&period=30')
    assert.equal(groupSecret('JBSWY3DPEHPK3PXP'), 'JBSW Y3DP EHPK 3PXP')
  })
})
