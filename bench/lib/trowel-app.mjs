// A Trowel app for the benchmarks, made the way a user makes one: `craft new`, the seed's web-auth
// and JWT-API steps (scripts/seed-steps.mjs), a small controller with the benchmarked JSON routes,
// `craft migrate`; then a user registered through POST /register and logged in through the forms.
import { mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { applyApiSteps, applyAuthSteps, disableLoginBudgets } from '../../scripts/seed-steps.mjs'
import { ROOT, runNode, startServer, freePort } from './common.mjs'

export const BENCH_USER = { name: 'Bench User', email: 'bench@example.test', password: 'correct-horse-battery-bench-4711' }

const CONTROLLER = `import type { HttpContext } from 'trowel'

export class BenchController {
  /** A JSON route: what issue 2's kernel benchmark measures. */
  json() {
    return { hello: 'world' }
  }

  /** The session-protected "/home" of the peer benchmark, as JSON. */
  home({ auth }: HttpContext) {
    return { data: auth.user() }
  }
}
`

const ROUTES = `  Route.get('/bench/json', 'BenchController@json').withoutMiddleware('web'),
  Route.get('/bench/web-json', 'BenchController@json'),
  Route.get('/bench/home', 'BenchController@home').middleware(['auth']),`

/**
 * @param {{ auth?: boolean, api?: boolean, editApiConfig?: (apiTs: string) => string, env?: Record<string, string> }} options
 * `env`: the environment of every craft command and server of this app (e.g. a DATABASE_URL).
 */
export function createTrowelApp({ auth = true, api = true, editApiConfig, env: appEnv = {} } = {}) {
  const parent = mkdtempSync(join(tmpdir(), 'trowel-bench-'))
  const dir = join(parent, 'app')
  runNode([join(ROOT, 'bin/craft.js'), 'new', dir], { cwd: parent })
  const craft = (args) => runNode(['craft', ...args], { cwd: dir, env: appEnv })
  if (auth) applyAuthSteps(dir, craft)
  // Benchmarks log in many times as one user from one address: the budgets would refuse them.
  if (auth) disableLoginBudgets(dir)
  if (api) applyApiSteps(dir, craft)
  if (api && editApiConfig) {
    const file = join(dir, 'config/api.ts')
    writeFileSync(file, editApiConfig(readFileSync(file, 'utf8')))
  }
  writeFileSync(join(dir, 'app/controllers/BenchController.ts'), CONTROLLER)
  const web = join(dir, 'routes/web.ts')
  writeFileSync(web, readFileSync(web, 'utf8').replace('export const ROUTES = [', `export const ROUTES = [\n${ROUTES}`))
  craft(['migrate'])
  return {
    dir,
    craft,
    env() {
      return Object.fromEntries(
        readFileSync(join(dir, '.env'), 'utf8')
          .split('\n')
          .map((l) => /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(l))
          .filter(Boolean)
          .map((m) => [m[1], m[2]]),
      )
    },
    /** `node craft serve` pinned to the server core; ready when `readyPath` answers 200. */
    async serve({ name = 'trowel', env = {}, readyPath = '/bench/json', port } = {}) {
      port ??= await freePort()
      const server = await startServer({
        name,
        args: ['craft', 'serve', '--host', '127.0.0.1', '--port', String(port)],
        cwd: dir,
        env: { ...appEnv, ...env },
        readyUrl: `http://127.0.0.1:${port}${readyPath}`,
      })
      server.url = `http://127.0.0.1:${port}`
      return server
    },
    cleanup() {
      rmSync(parent, { recursive: true, force: true })
    },
  }
}

/** A minimal cookie jar over fetch. */
export class Browser {
  constructor(base) {
    this.base = base
    this.cookies = new Map()
  }

  get cookieHeader() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ')
  }

  async request(path, { method = 'GET', form, json, headers = {} } = {}) {
    const h = { ...headers }
    if (this.cookies.size) h.cookie = this.cookieHeader
    let body
    if (form) {
      h['content-type'] = 'application/x-www-form-urlencoded'
      body = new URLSearchParams(form).toString()
    } else if (json) {
      h['content-type'] = 'application/json'
      body = JSON.stringify(json)
    }
    const res = await fetch(this.base + path, { method, headers: h, body, redirect: 'manual', signal: AbortSignal.timeout(30_000) })
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';')
      const eq = pair.indexOf('=')
      const name = pair.slice(0, eq).trim()
      const value = pair.slice(eq + 1).trim()
      const expired = attrs.some((a) => /^\s*max-age=0\s*$/i.test(a)) || value === ''
      if (expired) this.cookies.delete(name)
      else this.cookies.set(name, value)
    }
    const text = await res.text()
    return { status: res.status, headers: res.headers, text }
  }

  async csrf(path) {
    const page = await this.request(path)
    const m = /name="__token"\s+value="([^"]+)"/.exec(page.text) ?? /value="([^"]+)"\s+name="__token"/.exec(page.text)
    if (!m) throw new Error(`no CSRF field on ${path} (status ${page.status})`)
    return m[1]
  }
}

/** Registers BENCH_USER through the web form (argon2id hash, as every user gets). */
export async function registerUser(base, user = BENCH_USER) {
  const b = new Browser(base)
  const token = await b.csrf('/register')
  const r = await b.request('/register', { method: 'POST', form: { ...user, password_confirmation: user.password, __token: token } })
  if (r.status !== 302 || r.headers.get('location') !== '/home') throw new Error(`registration failed: ${r.status} ${r.headers.get('location')}`)
}

/** Logs in through the web form; returns the Cookie header of the logged-in browser. */
export async function webLogin(base, user = BENCH_USER) {
  const b = new Browser(base)
  const token = await b.csrf('/login')
  const r = await b.request('/login', { method: 'POST', form: { email: user.email, password: user.password, __token: token } })
  if (r.status !== 302 || r.headers.get('location') !== '/home') throw new Error(`web login failed: ${r.status} ${r.headers.get('location')}`)
  return b.cookieHeader
}

/** POST /api/auth; returns the JWT. */
export async function apiToken(base, user = BENCH_USER) {
  const r = await new Browser(base).request('/api/auth', { method: 'POST', json: { username: user.email, password: user.password } })
  if (r.status !== 200) throw new Error(`POST /api/auth failed: ${r.status} ${r.text}`)
  return JSON.parse(r.text).data
}
