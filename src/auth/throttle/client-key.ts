/**
 * @module auth/throttle/client-key
 * The client a budget counts: an IPv4 address as is; an IPv6 address by its /64 prefix (one
 * subscriber is routinely given a whole /64, so counting single IPv6 addresses would hand an
 * attacker 2^64 budgets); an IPv4-mapped IPv6 address (`::ffff:192.0.2.1`) as its IPv4 address.
 * Pure: no DNS, no configuration.
 */
import { isIPv4, isIPv6 } from 'node:net'

/**
 * The budget key of a client address.
 *
 * @example
 * clientKey('203.0.113.9')             // '203.0.113.9'
 * clientKey('::ffff:203.0.113.9')      // '203.0.113.9'
 * clientKey('2001:db8:1:2:aaaa::1')    // '2001:db8:1:2::/64'
 * clientKey('2001:DB8:1:2:bbbb:0:0:7') // '2001:db8:1:2::/64'
 */
export function clientKey(ip: string): string {
  const address = ip.trim()
  if (isIPv4(address)) return address
  // A zone (`fe80::1%eth0`) names an interface of this host, not another client.
  const unzoned = address.includes('%') ? address.slice(0, address.indexOf('%')) : address
  if (!isIPv6(unzoned)) return address
  const groups = ipv6Groups(unzoned)
  if (groups === null) return address
  const mapped = groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff
  if (mapped) return `${groups[6]! >> 8}.${groups[6]! & 0xff}.${groups[7]! >> 8}.${groups[7]! & 0xff}`
  return `${groups.slice(0, 4).map((g) => g.toString(16)).join(':')}::/64`
}

/** The eight 16-bit groups of a valid IPv6 address (with `::` and a dotted IPv4 tail expanded). */
function ipv6Groups(address: string): number[] | null {
  let text = address.toLowerCase()
  const lastColon = text.lastIndexOf(':')
  const last = text.slice(lastColon + 1)
  if (last.includes('.')) {
    // A dotted IPv4 tail (`::ffff:192.0.2.1`) is the last two groups.
    if (!isIPv4(last)) return null
    const [a, b, c, d] = last.split('.').map(Number) as [number, number, number, number]
    text = `${text.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const halves = text.split('::')
  if (halves.length > 2) return null
  const parse = (part: string): number[] => (part === '' ? [] : part.split(':').map((g) => (/^[0-9a-f]{1,4}$/.test(g) ? Number.parseInt(g, 16) : Number.NaN)))
  const head = parse(halves[0]!)
  const rest = halves.length === 2 ? parse(halves[1]!) : []
  const missing = 8 - head.length - rest.length
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null
  const groups = [...head, ...Array<number>(halves.length === 2 ? missing : 0).fill(0), ...rest]
  return groups.every((g) => Number.isInteger(g)) ? groups : null
}
