import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { encode } from 'uqr'
import { qrCodeSvg } from './qr-code.js'

const URI = 'otpauth://totp/My%20App:ada%40example.com?secret=JBSWY3DPEHPK3PXP&issuer=My%20App'

describe('qrCodeSvg', () => {
  it('draws exactly the modules of the QR code, inside a 4-module quiet zone', () => {
    const svg = qrCodeSvg(URI, { label: 'QR code' })
    const { size, data } = encode(URI, { ecc: 'M', border: 0 })
    assert.match(svg, new RegExp(`viewBox="0 0 ${size + 8} ${size + 8}"`))
    const drawn = Array.from({ length: size }, () => Array<boolean>(size).fill(false))
    for (const [, x, y, w] of svg.matchAll(/M(\d+) (\d+)h(\d+)v1h-\d+z/g)) {
      for (let i = 0; i < Number(w); i++) {
        const row = drawn[Number(y) - 4]!
        assert.equal(row[Number(x) - 4 + i], false, 'a module drawn twice')
        row[Number(x) - 4 + i] = true
      }
    }
    assert.deepEqual(drawn, data)
  })

  it('is an accessible image with an escaped label, and nothing else', () => {
    const svg = qrCodeSvg(URI, { label: 'Scan "me" <now> & go', size: 160 })
    assert.match(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" [^>]*role="img" aria-label="Scan &quot;me&quot; &lt;now&gt; &amp; go"/)
    assert.match(svg, /width="160" height="160"/)
    assert.ok(!svg.includes('<script') && !svg.includes('secret='))
  })
})
