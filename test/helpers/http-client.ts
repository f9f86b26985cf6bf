/**
 * A small browser-like HTTP client for black-box tests: a cookie jar, no automatic redirects,
 * form and JSON bodies, and the CSRF field read from the last HTML page.
 */
export interface HttpResult {
  status: number
  headers: Headers
  text: string
  json(): any
  location: string | null
  setCookies: string[]
}

export class Client {
  readonly base: string
  readonly cookies = new Map<string, string>()
  lastHtml = ''
  extraHeaders: Record<string, string> = {}

  constructor(base: string) {
    this.base = base
  }

  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ')
  }

  async request(method: string, path: string, options: { form?: Record<string, string | string[]>; multipart?: FormData; json?: unknown; body?: string; headers?: Record<string, string>; cookies?: boolean } = {}): Promise<HttpResult> {
    // A fresh connection per request: no race with the server closing an idle keep-alive socket.
    const headers: Record<string, string> = { connection: 'close', ...this.extraHeaders, ...options.headers }
    if (options.cookies !== false && this.cookies.size > 0) headers.cookie = this.cookieHeader()
    let body: string | FormData | undefined = options.body
    if (options.multipart) {
      body = options.multipart // fetch sets multipart/form-data with its boundary
    } else if (options.form) {
      const params = new URLSearchParams()
      for (const [k, v] of Object.entries(options.form)) for (const one of Array.isArray(v) ? v : [v]) params.append(k, one)
      body = params.toString()
      headers['content-type'] ??= 'application/x-www-form-urlencoded'
    } else if (options.json !== undefined) {
      body = JSON.stringify(options.json)
      headers['content-type'] ??= 'application/json'
    }
    const response = await fetch(this.base + path, { method, headers, body, redirect: 'manual' })
    const setCookies = response.headers.getSetCookie()
    if (options.cookies !== false) {
      for (const line of setCookies) {
        const [pair, ...attrs] = line.split(';')
        const eq = pair!.indexOf('=')
        const name = pair!.slice(0, eq).trim()
        const value = pair!.slice(eq + 1).trim()
        const expired = attrs.some((a) => /max-age=0/i.test(a.trim()) || /expires=thu, 01 jan 1970/i.test(a.trim()))
        if (expired || value === '') this.cookies.delete(name)
        else this.cookies.set(name, value)
      }
    }
    const text = await response.text()
    if ((response.headers.get('content-type') ?? '').includes('text/html')) this.lastHtml = text
    return {
      status: response.status,
      headers: response.headers,
      text,
      json: () => JSON.parse(text),
      location: response.headers.get('location'),
      setCookies,
    }
  }

  get(path: string, headers?: Record<string, string>) {
    return this.request('GET', path, { headers })
  }

  post(path: string, form: Record<string, string | string[]>, headers?: Record<string, string>) {
    return this.request('POST', path, { form, headers })
  }

  postJson(path: string, json: unknown, headers?: Record<string, string>) {
    return this.request('POST', path, { json, headers })
  }

  /** The `__token` CSRF field of the last HTML page. */
  csrf(): string {
    const match = /name="__token" value="([^"]+)"/.exec(this.lastHtml)
    if (!match) throw new Error('no CSRF field on the last page')
    return match[1]!
  }

  /** GETs `page`, then POSTs `form` with its CSRF token to `action`. */
  async submit(page: string, action: string, form: Record<string, string | string[]>): Promise<HttpResult> {
    await this.get(page)
    return this.post(action, { __token: this.csrf(), ...form })
  }
}
