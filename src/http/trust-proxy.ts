/**
 * @module http/trust-proxy
 * `TRUST_PROXY`: how many reverse proxies stand between the clients and the app.
 * - off (unset, `0`, `false`): the socket address is the client; `X-Forwarded-*` is ignored.
 * - `1`/`true`/`yes`/`on`: one proxy (a load balancer) that appends the address it saw to
 *   `X-Forwarded-For`: the client is the last entry. Entries before it are whatever the client
 *   sent, so they are never believed.
 * - `N`: N proxies in a row, each appending: the client is the N-th entry from the right.
 */

/** The number of trusted proxy hops that `TRUST_PROXY` names (0 = none). */
export function trustedProxyHops(value: string | undefined): number {
  if (value === undefined) return 0
  const text = value.trim().toLowerCase()
  if (['true', 'yes', 'on'].includes(text)) return 1
  if (/^\d{1,2}$/.test(text)) return Number(text)
  return 0
}

/**
 * The client address from an `X-Forwarded-For` value and `hops` trusted proxies, or undefined
 * when the header is absent or empty (the socket address is then the client's).
 */
export function forwardedClient(forwardedFor: string | undefined, hops: number): string | undefined {
  if (hops < 1 || !forwardedFor) return undefined
  const chain = forwardedFor.split(',').map((part) => part.trim()).filter(Boolean)
  if (chain.length === 0) return undefined
  return chain[Math.max(0, chain.length - hops)]
}
