/**
 * @module auth/two-factor/qr-code
 * A QR code as inline SVG markup (on `uqr`): no image request, nothing for a third party to see,
 * and it scales crisply. Dark modules are drawn as one path of horizontal runs on a white square
 * with the 4-module quiet zone scanners expect, so it reads in dark mode too.
 */
import { lazyModule } from '../../support/lazy-module.js'

/** uqr, loaded by the first QR code drawn. */
const uqr = lazyModule<typeof import('uqr')>('uqr')

const QUIET_ZONE = 4

function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!)
}

/**
 * `<svg role="img">` of `text` as a QR code (error correction M), `label` its accessible name,
 * drawn `size` CSS pixels wide (default 200).
 */
export function qrCodeSvg(text: string, options: { label: string; size?: number }): string {
  const { size: modules, data } = uqr().encode(text, { ecc: 'M', border: 0 })
  const side = modules + 2 * QUIET_ZONE
  let path = ''
  for (let y = 0; y < modules; y++) {
    let x = 0
    while (x < modules) {
      if (!data[y]![x]) {
        x++
        continue
      }
      const start = x
      while (x < modules && data[y]![x]) x++
      path += `M${start + QUIET_ZONE} ${y + QUIET_ZONE}h${x - start}v1h-${x - start}z`
    }
  }
  const px = options.size ?? 200
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${side} ${side}" width="${px}" height="${px}" role="img" aria-label="${escapeXml(options.label)}" shape-rendering="crispEdges">` +
    `<rect width="${side}" height="${side}" fill="#fff"/><path fill="#000" d="${path}"/></svg>`
  )
}
