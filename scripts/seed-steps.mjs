// The seed's setup steps, applied to an app folder exactly as a person would: edit files, run
// craft. Used by the demo (`npm start`) and by the black-box tests, so both exercise the
// documented path rather than a shortcut.
import { readFileSync, writeFileSync, existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'

function edit(dir, file, fn) {
  const path = join(dir, file)
  writeFileSync(path, fn(readFileSync(path, 'utf8')))
}

function addImport(text, line) {
  return text.includes(line) ? text : line + '\n' + text
}

/** Steps 1–3: `craft auth`, then `...Auth.routes()` in routes/web.ts unless craft auth wired them. */
export function applyAuthSteps(dir, craft) {
  craft(['auth'])
  // `craft auth` wires `...authRoutes()` into routes/web.ts itself: adding the seed's
  // `...Auth.routes()` beside it would list every auth route twice.
  edit(dir, 'routes/web.ts', (t) =>
    /\.\.\.(authRoutes|Auth\.routes)\(/.test(t)
      ? t
      : addImport(t, "import { Auth } from 'trowel/auth'").replace('export const ROUTES = [', 'export const ROUTES = [\n  ...Auth.routes(),'),
  )
}

/**
 * Steps 4–12: ApiProvider, routes/api.ts, routes.api.location, AuthenticatesTokens, the token
 * column migration, api:install, Api.routes(), and the api/guard stacks.
 */
export function applyApiSteps(dir, craft, options = {}) {
  const { loadUser = true, apiRoutes = null, authRoute, reauthRoute, tokenColumn = 'api_token' } = options
  // 4. ApiProvider in PROVIDERS
  edit(dir, 'config/providers.ts', (t) =>
    addImport(t, "import { ApiProvider } from 'trowel/api'").replace('export const PROVIDERS = [', 'export const PROVIDERS = [\n  ApiProvider,'),
  )
  // 5. routes/api.ts
  writeFileSync(
    join(dir, 'routes/api.ts'),
    apiRoutes ??
      `import { Route } from 'trowel'\n\nexport const ROUTES = [\n  Route.get('/me', ({ request }) => ({ data: request.user() })).name('api.me'),\n]\n`,
  )
  // 6. routes.api.location
  edit(dir, 'Kernel.ts', (t) =>
    t.replace("this.application.bind('routes.location', 'routes/web')", "this.application.bind('routes.location', 'routes/web')\n    this.application.bind('routes.api.location', 'routes/api')"),
  )
  // 8. AuthenticatesTokens on the model
  edit(dir, 'app/models/User.ts', (t) => {
    let out = addImport(t, "import { AuthenticatesTokens } from 'trowel/api'").replace('extends Authenticates(Model)', 'extends AuthenticatesTokens(Authenticates(Model))')
    if (tokenColumn !== 'api_token') out = out.replace("static table = 'users'", `static table = 'users'\n  static tokenColumn = '${tokenColumn}'`)
    return out
  })
  // 9. the token column migration, then migrate
  craft(['migration', 'add_api_token_users', '--table', 'users'])
  const migrations = join(dir, 'databases/migrations')
  const file = readdirSync(migrations).find((f) => f.endsWith('_add_api_token_users.ts'))
  edit(dir, `databases/migrations/${file}`, (t) =>
    t
      .replace(/(async up\(\)[^{]*\{[\s\S]*?schema\.table\('users', \(table\) => \{)/, `$1\n      table.string('${tokenColumn}').nullable()`)
      .replace(/(async down\(\)[^{]*\{[\s\S]*?schema\.table\('users', \(table\) => \{)/, `$1\n      table.dropColumn('${tokenColumn}')`),
  )
  // 10. config/api.ts and JWT_SECRET
  if (!existsSync(join(dir, 'config/api.ts'))) craft(['api:install'])
  // 11. Api.routes() in routes/web.ts
  const args = []
  if (authRoute) args.push(`authRoute: '${authRoute}'`)
  if (reauthRoute) args.push(`reauthRoute: '${reauthRoute}'`)
  edit(dir, 'routes/web.ts', (t) =>
    addImport(t, "import { Api } from 'trowel/api'").replace('export const ROUTES = [', `export const ROUTES = [\n  ...Api.routes(${args.length ? `{ ${args.join(', ')} }` : ''}),`),
  )
  // 12. the api (and guard) stacks
  edit(dir, 'Kernel.ts', (t) =>
    addImport(t, "import { JWTAuthenticationMiddleware, LoadUserMiddleware, GuardMiddleware } from 'trowel/api'").replace(
      'routeMiddleware = {',
      `routeMiddleware = {\n    api: [JWTAuthenticationMiddleware${loadUser ? ', LoadUserMiddleware' : ''}],\n    guard: [GuardMiddleware],`,
    ),
  )
}

/** The demo's routes/api.ts: GET /api/me answers the token's user. */
export const DEMO_API_ROUTES = `import { Route } from 'trowel'

export const ROUTES = [
  Route.get('/me', ({ request }) => ({ data: request.user() })).name('api.me'),
]
`

/** The demo's token lifetime (DRIVERS.jwt.expires, minutes): short, so refreshes are seen. */
export function setDemoTokenLifetime(dir, minutes = 1) {
  edit(dir, 'config/api.ts', (t) => t.replace(/\bexpires: null\b/, `expires: ${minutes}`))
}

/**
 * The demo's home page (`npm start`, and the browser tests): the logged-in user, and a panel that
 * fetches a token from POST /api/auth (then, for a user with two factors, POST
 * /api/auth/two-factor with the code) and calls GET /api/me with it. Colours come from the
 * layout's variables, so the panel reads in dark mode too.
 */
export function applyDemoPage(dir) {
  // Before the last `{% endblock %}`: the end of the content block (the first one closes the title).
  edit(dir, 'templates/auth/home.html', (t) => {
    const at = t.lastIndexOf('{% endblock %}')
    return t.slice(0, at) + t.slice(at).replace(
      '{% endblock %}',
      `<section aria-labelledby="api-title" style="margin-top:1.5rem">
  <h2 id="api-title" style="font-size:1.15rem">Try the JWT API</h2>
  <p>Enter your password to get a token from <code>POST /api/auth</code>, then call <code>GET /api/me</code> with it. The <a href="/spa">single-page example</a> does the same with <code>trowel/client</code>.</p>
  <label for="api-password">Password</label>
  <input id="api-password" type="password" autocomplete="current-password">
  <button type="button" id="api-button" data-email="{{ user.email }}">Get a token and call the API</button>
  <div id="api-second-step" hidden>
    <label for="api-code">Authentication code</label>
    <p id="api-code-hint">Your account has two-factor authentication: enter the code from your authenticator app, or a recovery code.</p>
    <input id="api-code" autocomplete="one-time-code" aria-describedby="api-code-hint">
    <button type="button" id="api-code-button">Verify and call the API</button>
  </div>
  <pre id="api-result" aria-live="polite" style="white-space:pre-wrap;word-break:break-all;background:var(--code,#eff2f5);color:var(--fg,inherit);padding:.75rem;border-radius:6px;min-height:2rem"></pre>
</section>
<script>
(function () {
  const out = document.getElementById('api-result')
  const step = document.getElementById('api-second-step')
  let mfaToken = null
  const post = (path, body) => fetch(path, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify(body) })
  async function finish(res, label) {
    const body = await res.json()
    if (res.status === 401 && body.code === 'E_MFA_REQUIRED' && body.mfa_token) {
      mfaToken = body.mfa_token
      step.hidden = false
      out.textContent = label + ' → 401 E_MFA_REQUIRED: enter your authentication code above.'
      document.getElementById('api-code').focus()
      return
    }
    if (!res.ok) { out.textContent = label + ' → ' + res.status + ' ' + JSON.stringify(body); return }
    mfaToken = null
    step.hidden = true
    document.getElementById('api-code').value = ''
    const me = await fetch('/api/me', { headers: { authorization: 'Bearer ' + body.data } })
    out.textContent = 'token: ' + body.data.slice(0, 32) + '…\\nGET /api/me → ' + me.status + '\\n' + JSON.stringify(await me.json(), null, 2)
  }
  document.getElementById('api-button').addEventListener('click', async () => {
    out.textContent = 'Calling POST /api/auth…'
    const res = await post('/api/auth', { username: document.getElementById('api-button').dataset.email, password: document.getElementById('api-password').value })
    await finish(res, 'POST /api/auth')
  })
  document.getElementById('api-code-button').addEventListener('click', async () => {
    const value = document.getElementById('api-code').value.trim()
    const answer = /^\\d{3}\\s?\\d{3}$/.test(value) ? { code: value.replace(/\\s/g, '') } : { recovery_code: value }
    out.textContent = 'Calling POST /api/auth/two-factor…'
    await finish(await post('/api/auth/two-factor', { mfa_token: mfaToken, ...answer }), 'POST /api/auth/two-factor')
  })
})()
</script>
{% endblock %}`,
    )
  })
}

/**
 * Turns the login budgets off in an app's config/auth.ts (`login`, `ip`, `account`: null), for
 * load runs and benchmarks that log in thousands of times as one user from one address.
 */
export function disableLoginBudgets(dir) {
  const file = join(dir, 'config/auth.ts')
  const text = readFileSync(file, 'utf8')
  const edited = text
    .replace(/\blogin: \{ attempts: [^}]*\}/, 'login: null')
    .replace(/\bip: \{ attempts: [^}]*\}/, 'ip: null')
    .replace(/\baccount: \{ attempts: [^}]*\}/, 'account: null')
  if (edited === text) throw new Error('config/auth.ts has no generated GUARDS.throttle block to edit')
  writeFileSync(file, edited)
}
