/**
 * @module mail/mail-address
 * Mail addresses: `jane@example.com`, `Jane Doe <jane@example.com>` or `{ name, address }`.
 * Anything with CR/LF is refused (`MailHeaderInjectionError`), as is anything that is not a
 * plausible `local@domain` address.
 */
import { MailError, MailHeaderInjectionError } from './mail-error.js'

export type AddressInput = string | { name?: string; address: string }

export interface MailAddress {
  name?: string
  address: string
}

const PLAUSIBLE_ADDRESS = /^[^\s@<>()[\]",;:\\]+@[^\s@<>()[\]",;:\\]+$/
const LINE_BREAK = /[\r\n\u2028\u2029\u0085]/

/** Throws `MailHeaderInjectionError` when `value` holds a line break. */
export function assertSingleLine(field: string, value: string): string {
  if (LINE_BREAK.test(value)) throw new MailHeaderInjectionError(field)
  return value
}

export function parseAddress(field: string, input: AddressInput): MailAddress {
  if (typeof input !== 'string' && (typeof input !== 'object' || input === null || typeof input.address !== 'string')) {
    throw new MailError(`The mail ${field} must be an address string or { name, address }.`)
  }
  let name: string | undefined
  let address: string
  if (typeof input === 'string') {
    assertSingleLine(field, input)
    const match = /^\s*(.*?)\s*<([^<>]+)>\s*$/.exec(input)
    name = match ? match[1]!.replace(/^"(.*)"$/, '$1') || undefined : undefined
    address = (match ? match[2]! : input).trim()
  } else {
    if (input.name !== undefined) name = assertSingleLine(field, String(input.name)).trim() || undefined
    address = assertSingleLine(field, input.address).trim()
  }
  if (!PLAUSIBLE_ADDRESS.test(address) || address.length > 254) {
    throw new MailError(`The mail ${field} "${address.slice(0, 80)}" is not a valid address.`)
  }
  return name === undefined ? { address } : { name, address }
}

/** `"Jane Doe" <jane@example.com>`, or the bare address. */
export function formatAddress(address: MailAddress): string {
  return address.name ? `"${address.name.replace(/["\\]/g, '\\$&')}" <${address.address}>` : address.address
}
