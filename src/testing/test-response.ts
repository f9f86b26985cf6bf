/**
 * @module testing/test-response
 * What the test client returns: status, headers, body, and chainable assertions that throw
 * node's `AssertionError` with the status, the Location and the start of the body in the message.
 */
import { AssertionError } from 'node:assert'
import { isDeepStrictEqual } from 'node:util'

export class TestResponse {
  readonly status: number
  /** Lower-case header names; `set-cookie` is an array. */
  readonly headers: Readonly<Record<string, string | string[]>>
  readonly text: string
  readonly method: string
  readonly path: string

  constructor(init: { status: number; headers: Record<string, string | string[]>; text: string; method: string; path: string }) {
    this.status = init.status
    this.headers = init.headers
    this.text = init.text
    this.method = init.method
    this.path = init.path
  }

  /** One header (joined with ", " when repeated), or undefined. */
  header(name: string): string | undefined {
    const value = this.headers[name.toLowerCase()]
    return Array.isArray(value) ? value.join(', ') : value
  }

  /** The `Location` header, or null. */
  get location(): string | null {
    return this.header('location') ?? null
  }

  /** The `Set-Cookie` lines of this response. */
  get cookies(): string[] {
    const value = this.headers['set-cookie']
    return value === undefined ? [] : Array.isArray(value) ? value : [value]
  }

  /** The body parsed as JSON; throws an AssertionError when it is not JSON. */
  json<T = any>(): T {
    try {
      return JSON.parse(this.text) as T
    } catch {
      this.#fail('a JSON body')
    }
  }

  assertStatus(status: number): this {
    if (this.status !== status) this.#fail(`status ${status}`)
    return this
  }

  /** 200. */
  assertOk(): this {
    return this.assertStatus(200)
  }

  /** 201. */
  assertCreated(): this {
    return this.assertStatus(201)
  }

  /** 404. */
  assertNotFound(): this {
    return this.assertStatus(404)
  }

  /**
   * 401 (JSON routes; a web page that needs a login redirects instead:
   * `assertRedirect('/login')`).
   */
  assertUnauthorized(): this {
    return this.assertStatus(401)
  }

  /** 403. */
  assertForbidden(): this {
    return this.assertStatus(403)
  }

  /**
   * A redirect (301, 302, 303, 307, 308), and when `path` is given, to that path (an absolute
   * Location counts by its path and query; a query in the Location is ignored when `path` has none).
   */
  assertRedirect(path?: string): this {
    if (![301, 302, 303, 307, 308].includes(this.status) || this.location === null) this.#fail(path ? `a redirect to ${path}` : 'a redirect')
    if (path !== undefined) {
      const target = new URL(this.location!, 'http://localhost')
      const wanted = new URL(path, 'http://localhost')
      const samePath = target.pathname === wanted.pathname
      const sameQuery = wanted.search === '' || target.search === wanted.search
      if (!samePath || !sameQuery) this.#fail(`a redirect to ${path}`)
    }
    return this
  }

  /**
   * The JSON body contains `partial`: every key of `partial` is present with an equal value,
   * recursively for objects; arrays must have the same length, element by element.
   */
  assertJson(partial: unknown): this {
    const body = this.json()
    const problem = subsetProblem(body, partial, '$')
    if (problem) this.#fail(`JSON containing ${JSON.stringify(partial)} (${problem})`)
    return this
  }

  /** The body contains `text` (as written, HTML not decoded). */
  assertSee(text: string): this {
    if (!this.text.includes(text)) this.#fail(`a body containing ${JSON.stringify(text)}`)
    return this
  }

  assertDontSee(text: string): this {
    if (this.text.includes(text)) this.#fail(`a body without ${JSON.stringify(text)}`)
    return this
  }

  /** The header is present, and equals `value` when given. */
  assertHeader(name: string, value?: string): this {
    const actual = this.header(name)
    if (actual === undefined || (value !== undefined && actual !== value)) this.#fail(`header ${name}${value === undefined ? '' : `: ${value}`} (got ${actual ?? 'none'})`)
    return this
  }

  #fail(expected: string): never {
    const location = this.location ? ` → ${this.location}` : ''
    const snippet = this.text.length > 300 ? this.text.slice(0, 300) + '…' : this.text
    throw new AssertionError({
      message: `Expected ${expected} from ${this.method} ${this.path}, got ${this.status}${location}${snippet ? `:\n${snippet}` : ''}`,
      actual: this.status,
      expected,
      operator: 'assertResponse',
      stackStartFn: this.#fail,
    })
  }
}

/** Why `actual` does not contain `expected`, or null when it does. */
function subsetProblem(actual: unknown, expected: unknown, at: string): string | null {
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return `${at} is not an array`
    if (actual.length !== expected.length) return `${at} has ${actual.length} items, not ${expected.length}`
    for (let i = 0; i < expected.length; i++) {
      const p = subsetProblem(actual[i], expected[i], `${at}[${i}]`)
      if (p) return p
    }
    return null
  }
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return `${at} is not an object`
    for (const [key, value] of Object.entries(expected)) {
      if (!Object.hasOwn(actual, key)) return `${at}.${key} is missing`
      const p = subsetProblem((actual as Record<string, unknown>)[key], value, `${at}.${key}`)
      if (p) return p
    }
    return null
  }
  return isDeepStrictEqual(actual, expected) ? null : `${at} is ${JSON.stringify(actual)}`
}
