/**
 * @module testing/cookie-store
 * The test client's cookie jar: keeps what `Set-Cookie` headers set (as a browser would, minus
 * domains and paths: every cookie goes back on every request) and drops what they expire.
 */
export class CookieStore {
  readonly #cookies = new Map<string, string>()

  /** Applies `Set-Cookie` header lines. */
  apply(lines: readonly string[]): void {
    for (const line of lines) {
      const [pair = '', ...attributes] = line.split(';')
      const eq = pair.indexOf('=')
      if (eq <= 0) continue
      const name = pair.slice(0, eq).trim()
      const value = pair.slice(eq + 1).trim()
      const expired = attributes.some((a) => {
        const [key = '', val = ''] = a.split('=').map((s) => s.trim())
        if (key.toLowerCase() === 'max-age') return Number(val) <= 0
        if (key.toLowerCase() === 'expires') return Date.parse(val) <= Date.now()
        return false
      })
      if (expired || value === '') this.#cookies.delete(name)
      else this.#cookies.set(name, value)
    }
  }

  get(name: string): string | undefined {
    return this.#cookies.get(name)
  }

  has(name: string): boolean {
    return this.#cookies.has(name)
  }

  set(name: string, value: string): void {
    this.#cookies.set(name, value)
  }

  delete(name: string): void {
    this.#cookies.delete(name)
  }

  clear(): void {
    this.#cookies.clear()
  }

  get size(): number {
    return this.#cookies.size
  }

  names(): string[] {
    return [...this.#cookies.keys()]
  }

  /** The `Cookie` request header, or undefined when the jar is empty. */
  header(): string | undefined {
    if (this.#cookies.size === 0) return undefined
    return [...this.#cookies].map(([k, v]) => `${k}=${v}`).join('; ')
  }
}
