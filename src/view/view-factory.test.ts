import { describe, it, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { IncomingMessage } from 'node:http'
import { Container } from '../container/container.js'
import { CookieJar } from '../http/cookie-jar.js'
import { Request } from '../http/request.js'
import { Response } from '../http/response.js'
import { HttpContext } from '../http/context.js'
import '../auth/auth.js'
import { InternalError } from '../http/errors.js'
import type { Application } from '../foundation/application.js'
import { Session } from '../session/session.js'
import { ViewFactory, ViewProvider, renderErrorPage, resolveTemplateName, TemplateRenderError } from './index.js'

class FakeApp extends Container {
  isDebug = false
  log = { info() {}, warn() {}, error() {} }
  constructor(readonly basePath: string) {
    super()
  }
  path(...s: string[]): string {
    return join(this.basePath, ...s)
  }
  config(): undefined {
    return undefined
  }
  onShutdown(): void {}
}

function fakeContext(app: FakeApp, session?: Session): HttpContext {
  const jar = new CookieJar('test-key-test-key-test-key-12345')
  const raw = { method: 'GET', url: '/login?next=1', headers: {}, socket: {} } as unknown as IncomingMessage
  const ctx = new HttpContext(app as unknown as Application, new Request(raw, { trustProxy: 0, cookies: jar }), new Response({ cookies: jar, secure: false, urlFor: () => '/' }), null)
  if (session) ctx.session = session
  return ctx
}

let dir: string
let app: FakeApp

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'trowel-view-'))
  const t = (name: string, body: string) => {
    mkdirSync(join(dir, 'templates', name, '..'), { recursive: true })
    writeFileSync(join(dir, 'templates', name), body)
  }
  t('hello.html', 'Hello {{ name }}!')
  t('auth/login.html', '<form>{{ csrf_field }}<input name="email" value="{{ old(\'email\') }}">{% if errors.email %}<p>{{ errors.email[0] }}</p>{% endif %}{{ messages.success }}</form>')
  t('globals.html', '{{ request.path }}|{{ request.method }}|{{ auth_user.name if auth_user else "guest" }}|{{ route("posts.show", { id: 7 }) }}|{{ flash("status") }}|{{ shared }}|{{ csrf_token }}')
  t('nocsrf.html', 'plain page')
  t('broken.html', 'line one\n{% if x %}\n{{ foo( }}\n')
  t('runtime.html', 'a\nb\n{{ nothing.deep.call() }}\n')
  t('errors/404.html', 'custom 404: {{ message }}')
  app = new FakeApp(dir)
  app.bind('url.for', (name: string, params?: Record<string, unknown>) => `/${name.split('.')[0]}/${String(params?.id)}`)
})
after(() => rmSync(dir, { recursive: true, force: true }))

describe('resolveTemplateName', () => {
  it('accepts auth/login, auth/login.html and auth.login', () => {
    for (const name of ['auth/login', 'auth/login.html', 'auth.login', 'auth.login.html']) assert.equal(resolveTemplateName(name), 'auth/login.html', name)
    assert.equal(resolveTemplateName('mailables.auth.reset_password'), 'mailables/auth/reset_password.html')
  })
  it('refuses traversal and absolute paths', () => {
    for (const name of ['../secret', '/etc/passwd', 'a/../../b', '', 'a//b']) assert.throws(() => resolveTemplateName(name), /not a template name/, name)
  })
})

describe('ViewFactory', () => {
  it('renders with data and autoescapes it', () => {
    const view = new ViewFactory(app)
    assert.equal(view.render('hello', { name: 'Ann' }), 'Hello Ann!')
    assert.equal(view.render('hello', { name: '<script>alert(1)</script>' }), 'Hello &lt;script&gt;alert(1)&lt;/script&gt;!')
    assert.equal(view.render('hello', { name: `"'&` }), 'Hello &quot;&#39;&amp;!')
  })

  it('renders request-less (mail, error pages) with empty defaults for the request globals', () => {
    assert.equal(new ViewFactory(app).render('auth/login'), '<form><input name="email" value=""></form>')
  })

  it('forContext exposes csrf_field, old(), errors and messages from the session', () => {
    const first = new Session('id')
    first.flashInput({ email: '"><script>x</script>', password: 'hunter22' })
    first.flashErrors({ email: ['The email field must be a valid email address.'] })
    first.flash('success', 'Welcome <b>back</b>')
    const session = new Session('id', first.toData())
    const html = new ViewFactory(app).forContext(fakeContext(app, session)).render('auth.login')
    assert.ok(html.includes(`<input type="hidden" name="__token" value="${session.token()}">`), html)
    assert.ok(html.includes('value="&quot;&gt;&lt;script&gt;x&lt;/script&gt;"'), html)
    assert.ok(html.includes('<p>The email field must be a valid email address.</p>'))
    assert.ok(html.includes('Welcome &lt;b&gt;back&lt;/b&gt;'))
    assert.ok(!html.includes('hunter22'))
  })

  it('creates the CSRF token only when a page outputs csrf_field', () => {
    const session = new Session('id')
    new ViewFactory(app).forContext(fakeContext(app, session)).render('nocsrf')
    assert.equal(session.currentToken(), null)
    assert.equal(session.isDirty, false)
  })

  it('exposes request, auth_user, route(), flash(), shares and csrf_token', () => {
    app.bind('http.context.auth', () => ({ user: () => ({ name: 'Ann' }) }))
    try {
      const prev = new Session('id')
      prev.flash('status', 'sent')
      const session = new Session('id', prev.toData())
      const view = new ViewFactory(app).share({ shared: 'global' })
      const out = view.forContext(fakeContext(app, session)).render('globals')
      assert.equal(out, `/login|GET|Ann|/posts/7|sent|global|${session.token()}`)
    } finally {
      app.bind('http.context.auth', undefined)
    }
  })

  it('works without a session or auth (e.g. API routes, error pages)', () => {
    const bare = new FakeApp(dir)
    bare.bind('url.for', () => '/x')
    const out = new ViewFactory(bare).forContext(fakeContext(bare)).render('auth/login')
    assert.equal(out, '<form><input name="email" value=""></form>')
  })

  it('names the template file and line of a syntax error in debug mode', () => {
    const view = new ViewFactory(app, { debug: true })
    assert.throws(
      () => view.render('broken'),
      (e: unknown) => e instanceof TemplateRenderError && e.template === join('templates', 'broken.html') && e.line === 3 && /broken\.html at line 3/.test(e.message),
    )
    assert.throws(() => view.render('runtime'), (e: unknown) => e instanceof TemplateRenderError && /runtime\.html at line 3, column \d+:/.test(e.message))
    assert.throws(() => view.render('missing/page'), (e: unknown) => e instanceof TemplateRenderError && /"missing\/page\.html" not found/.test(e.message))
  })

  it('debug mode compiles a template once and again after its file, a parent or an override changes', () => {
    const root = mkdtempSync(join(tmpdir(), 'trowel-view-debug-'))
    try {
      const [own, framework] = [join(root, 'app'), join(root, 'framework')]
      mkdirSync(own)
      mkdirSync(framework)
      writeFileSync(join(framework, 'layout.html'), '[{% block body %}{% endblock %}]')
      writeFileSync(join(framework, 'page.html'), '{% extends "layout.html" %}{% block body %}framework {{ n }}{% endblock %}')
      const view = new ViewFactory(app, { debug: true, paths: [own, framework] })
      assert.equal(view.render('page', { n: 1 }), '[framework 1]')
      const compiled = view.env.getTemplate('page.html')
      assert.equal(view.render('page', { n: 2 }), '[framework 2]')
      assert.equal(view.env.getTemplate('page.html'), compiled, 'unchanged files: the compiled template is kept')

      writeFileSync(join(framework, 'layout.html'), '<<{% block body %}{% endblock %}>>')
      assert.equal(view.render('page', { n: 3 }), '<<framework 3>>', 'an edited parent shows at the next render')
      assert.notEqual(view.env.getTemplate('page.html'), compiled)

      writeFileSync(join(own, 'page.html'), '{% extends "layout.html" %}{% block body %}app {{ n }}{% endblock %}')
      assert.equal(view.render('page', { n: 4 }), '<<app 4>>', "a new file in the app's folder overrides at the next render")
      rmSync(join(own, 'page.html'))
      assert.equal(view.render('page', { n: 5 }), '<<framework 5>>', 'and its removal falls back')
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  })

  it('outside debug mode a compiled template is kept whatever happens to its file', () => {
    const root = mkdtempSync(join(tmpdir(), 'trowel-view-cache-'))
    try {
      writeFileSync(join(root, 'page.html'), 'one')
      const view = new ViewFactory(app, { debug: false, paths: [root] })
      assert.equal(view.render('page'), 'one')
      writeFileSync(join(root, 'page.html'), 'two, longer')
      assert.equal(view.render('page'), 'one')
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  })

  it('hides template details outside debug mode (generic InternalError)', () => {
    const view = new ViewFactory(app, { debug: false })
    assert.throws(
      () => view.render('broken'),
      (e: unknown) => e instanceof InternalError && !(e instanceof TemplateRenderError) && e.message === 'Internal server error.' && e.status === 500,
    )
  })

  it('renderErrorPage prefers the app\'s errors/<status>.html and falls back to the framework page', () => {
    const view = new ViewFactory(app)
    assert.equal(view.renderErrorPage({ status: 404, message: 'Nope <b>', code: 'E_NOT_FOUND' }), 'custom 404: Nope &lt;b&gt;')
    const page = view.renderErrorPage({ status: 500, message: 'Boom', code: 'E_INTERNAL' })
    assert.match(page, /<!doctype html>[\s\S]*500[\s\S]*Boom/i)
    assert.match(page, /<title>500 Internal Server Error<\/title>/)
    assert.match(page, /<h1>Internal Server Error<\/h1>/)
  })

  it('ViewProvider binds view and http.context.view so ctx.view works', () => {
    const fresh = new FakeApp(dir)
    new ViewProvider(fresh as unknown as Application).register()
    const ctx = fakeContext(fresh)
    assert.equal(ctx.view.render('hello', { name: 'ctx' }), 'Hello ctx!')
  })
})

describe('renderErrorPage', () => {
  it('renders the framework page with status, message and code, escaped, without an app', () => {
    const html = renderErrorPage({ status: 419, message: 'Page expired <script>', code: 'E_CSRF' })
    assert.match(html, /^<!doctype html>/i)
    assert.ok(html.includes('419'))
    assert.match(html, /<title>419 Page Expired<\/title>/)
    assert.ok(html.includes('Page expired &lt;script&gt;'))
    assert.ok(html.includes('E_CSRF'))
    assert.ok(!html.includes('<pre'))
    assert.doesNotMatch(html, /stack/i, 'the word stack is not on a page without a trace')
    assert.ok(!/https?:\/\/(?!127)/.test(html.replace(/href="\/"/g, '')), 'no external resources')
  })

  it('shows the stack only when given', () => {
    const html = renderErrorPage({ status: 500, message: 'Boom', code: 'E_INTERNAL', stack: 'Error: Boom\n    at <anon>' })
    assert.ok(html.includes('<pre class="trace">Error: Boom\n    at &lt;anon&gt;</pre>'))
  })
})
