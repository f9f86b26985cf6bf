/**
 * docs/web-layer.md works as written: in a new app, every ```ts block headed `// <path>` and every
 * ```html block headed `<!-- <path> -->` is written over that file (without the heading line;
 * `<timestamp>` matches the generated migration), every `node craft ...` line of a ```sh block is
 * run (except `serve`), and `npm install valibot` links the framework's own copy of valibot (no
 * network). Then the app is served and what the guide says happens is checked over HTTP.
 */
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { ROOT, newApp, type TestApp, type Server } from '../helpers/app-harness.js'
import { Client, type HttpResult } from '../helpers/http-client.js'

const DOC = readFileSync(join(ROOT, 'docs', 'web-layer.md'), 'utf8')

interface Block {
  lang: string
  text: string
}

function blocks(): Block[] {
  return [...DOC.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => ({ lang: m[1]!, text: m[2]! }))
}

/** Applies the guide: runs its commands and writes its whole-file blocks, in order. */
function follow(app: TestApp): { written: string[]; outputs: string[] } {
  const written: string[] = []
  const outputs: string[] = []
  for (const block of blocks()) {
    if (block.lang === 'sh') {
      for (const raw of block.text.split('\n')) {
        const line = raw.replace(/\s+#.*$/, '').trim()
        if (line === '') continue
        if (line === 'npm install valibot') {
          symlinkSync(join(ROOT, 'node_modules', 'valibot'), join(app.dir, 'node_modules', 'valibot'), 'dir')
          continue
        }
        assert.ok(line.startsWith('node craft '), `unexpected command in the guide: ${line}`)
        const args = line.slice('node craft '.length).split(/\s+/)
        if (args[0] === 'serve') continue
        const r = app.craft(...args)
        assert.equal(r.code, 0, `"${line}" failed: ${r.stderr}${r.stdout}`)
        outputs.push(r.stdout)
      }
      continue
    }
    const header = block.lang === 'ts' ? /^\/\/ (\S+)\n/.exec(block.text) : block.lang === 'html' ? /^<!-- (\S+) -->\n/.exec(block.text) : null
    if (!header) continue
    let path = header[1]!
    if (path.includes('<timestamp>')) {
      const dir = path.slice(0, path.lastIndexOf('/'))
      const suffix = path.slice(path.lastIndexOf('/') + 1).replace('<timestamp>', '')
      const found = readdirSync(join(app.dir, dir)).filter((f) => f.endsWith(suffix))
      assert.equal(found.length, 1, `one file matching ${path}`)
      path = `${dir}/${found[0]}`
    }
    mkdirSync(dirname(join(app.dir, path)), { recursive: true })
    writeFileSync(join(app.dir, path), block.text.slice(header[0].length))
    written.push(header[1]!)
  }
  return { written, outputs }
}

let app: TestApp
let server: Server
let url: string

before(async () => {
  app = await newApp()
  const { written, outputs } = follow(app)
  assert.deepEqual(written.sort(), [
    'app/controllers/ContactController.ts',
    'app/mailables/ContactMessage.ts',
    'app/models/Subscriber.ts',
    'databases/migrations/<timestamp>_create_subscribers_table.ts',
    'routes/web.ts',
    'templates/contact.html',
    'templates/mailables/contact.html',
  ])
  assert.match(outputs[0]!, /^Created databases\/migrations\/\d{4}_\d\d_\d\d_\d{6}_create_subscribers_table\.ts$/m, 'craft migration prints what the guide says')
  assert.match(outputs[1]!, /Migrated: \d{4}_\d\d_\d\d_\d{6}_create_subscribers_table/)
  // "Try it. Set MAIL_DRIVER=log in .env"
  assert.match(DOC, /Set `MAIL_DRIVER=log` in `\.env`/)
  app.edit('.env', (t) => t.replace(/^MAIL_DRIVER=.*$/m, 'MAIL_DRIVER=log'))
  server = await app.serve()
  url = server.url
})

after(async () => {
  await app.cleanup()
})

const JSON_HEADERS = { accept: 'application/json' }
const path = (r: HttpResult) => (r.location === null ? null : new URL(r.location, url).pathname)
const mailLog = () => (app.exists('storage/logs/mail.log') ? app.read('storage/logs/mail.log') : '')
const token = (browser: Client) => /<meta name="csrf-token" content="([^"]+)">/.exec(browser.lastHtml)![1]!
/** `text` with the character `back` places from its end changed. */
const flip = (text: string, back: number) => text.slice(0, -back) + (text.at(-back) === 'x' ? 'y' : 'x') + text.slice(text.length - back + 1)
const cookieLine = (r: HttpResult, name: string) => r.setCookies.find((c) => c.startsWith(`${name}=`))

test('the page: /contact and /contact/<topic>, no-store, the CSRF token in the form and the <meta> tag', async () => {
  const browser = new Client(url)
  const page = await browser.get('/contact')
  assert.equal(page.status, 200)
  assert.match(page.headers.get('content-type')!, /^text\/html; charset=utf-8/)
  assert.equal(page.headers.get('cache-control'), 'no-store')
  assert.equal(page.headers.get('x-frame-options'), 'DENY')
  assert.match(page.text, /<title>Contact · app<\/title>/)
  assert.match(page.text, /<option selected>other<\/option>/)
  assert.equal(token(browser), browser.csrf(), 'csrf_token and csrf_field carry the same token')
  assert.match(page.text, /<form method="post" action="\/contact">/, "route('contact.send')")
  assert.match((await browser.get('/contact/support')).text, /<option selected>support<\/option>/, 'request.param()')
  assert.equal((await browser.get('/contact/a/b')).status, 404)
})

test('a form with errors: 302 back, the errors and the old input shown once, escaped', async () => {
  const browser = new Client(url)
  await browser.get('/contact/support')
  const sent = await browser.post('/contact', { __token: browser.csrf(), name: '<b>Ada</b>', email: 'nope', topic: 'x', message: ' short ' }, { referer: `${url}/contact/support` })
  assert.equal(sent.status, 302)
  assert.equal(path(sent), '/contact/support', 'back to the Referer')
  const page = (await browser.get('/contact/support')).text
  assert.match(page, /<p class="error">The e-mail address field must be a valid email address\.<\/p>/, 'attributes rename the field')
  assert.match(page, /<p class="error">Choose one of the topics\.<\/p>/, "messages['topic.in']")
  assert.match(page, /<p class="error">Please write at least 10 characters\.<\/p>/, 'the valibot schema, after trim')
  assert.doesNotMatch(page, /class="error">[^<]*name/i, 'the valid name has no error')
  assert.match(page, /<input name="name" value="&lt;b&gt;Ada&lt;\/b&gt;">/, 'old input, autoescaped')
  assert.match(page, /<input name="email" type="email" value="nope">/)
  assert.match(page, /<textarea name="message"> short <\/textarea>/)
  const again = (await browser.get('/contact/support')).text
  assert.doesNotMatch(again, /class="error"/, 'errors last one request')
  assert.match(again, /<textarea name="message"><\/textarea>/, 'old input lasts one request')

  await browser.get('/contact')
  const empty = await browser.post('/contact', { __token: browser.csrf() })
  assert.equal(path(empty), '/contact', 'without a Referer: the path posted to')
  const required = (await browser.get('/contact')).text
  assert.match(required, /The name field is required\./)
  assert.match(required, /The e-mail address field is required\./)
  assert.equal(mailLog(), '', 'nothing was mailed')
})

test('CSRF: no token, or one in the query string, is 419 E_CSRF; _token and X-CSRF-TOKEN work', async () => {
  const browser = new Client(url)
  await browser.get('/contact')
  const t = token(browser)
  const none = await browser.post('/theme', { theme: 'dark' })
  assert.equal(none.status, 419)
  assert.match(none.text, /Your session expired or the form was open too long\. Go back, reload the page and try again\./)
  const json = await browser.postJson('/contact', { name: 'Ada' }, JSON_HEADERS)
  assert.deepEqual(json.json(), { message: 'Page expired: the form was stale or forged. Reload and try again.', code: 'E_CSRF' })
  assert.equal((await browser.post(`/theme?__token=${t}`, { theme: 'dark' })).status, 419)
  assert.equal((await browser.post('/theme', { _token: t, theme: 'dark' })).status, 302)
  assert.equal((await browser.post('/theme', { theme: 'dark' }, { 'x-csrf-token': t })).status, 302)
})

test('JSON: 422 E_VALIDATION with errors (custom rule, valibot), 202 when valid, mailed with MAIL_DRIVER=log', async () => {
  const browser = new Client(url)
  await browser.get('/contact')
  const headers = { ...JSON_HEADERS, 'x-csrf-token': token(browser) }
  const invalid = await browser.postJson('/contact', { name: 'Ada\nBcc: x@example.com', email: 'ada@example.com', topic: 'sales', message: '   hi   ' }, headers)
  assert.equal(invalid.status, 422)
  assert.deepEqual(invalid.json(), {
    message: 'The given data was invalid.',
    code: 'E_VALIDATION',
    errors: { name: ['Your name must fit on one line.'], message: ['Please write at least 10 characters.'] },
  })
  const typed = await browser.postJson('/contact', { name: ['Ada'], email: 'ada@example.com', topic: 'sales', message: 'Hello from fetch()' }, headers)
  assert.deepEqual(typed.json().errors, { name: ['The name field must be a string.'] })

  const ok = await browser.postJson('/contact', { name: 'Ada', email: 'ada@example.com', topic: 'sales', message: '   Hello from fetch()   ' }, headers)
  assert.equal(ok.status, 202)
  assert.deepEqual(ok.json(), { sent: true, topic: 'sales' })
  const log = mailLog()
  assert.match(log, /^To: support@example\.test$/m)
  assert.match(log, /^Reply-To: "Ada" <ada@example\.com>$/m)
  assert.match(log, /^Subject: \[sales\] Message from Ada$/m)
  assert.match(log, /^From: no-reply@example\.test$/m, 'MAIL_FROM_ADDRESS')
  assert.match(log, /<blockquote>Hello from fetch\(\)<\/blockquote>/, 'the HTML part, with the trimmed message')
  assert.match(log, /^> Hello from fetch\(\)$/m, "the text part made from the HTML (a blockquote quoted)")
  assert.match(log, /Sent from 127\.0\.0\.1\./, 'request.ip()')
  assert.equal(log.match(/^Subject: /gm)!.length, 1, 'one message, only for the valid request')
})

test('a valid form: 302, the flash shows once, the session counts, the name comes back from an encrypted cookie', async () => {
  const browser = new Client(url)
  const earlier = mailLog().match(/^Subject: /gm)?.length ?? 0
  const sent = await browser.submit('/contact', '/contact', { name: 'Grace', email: 'grace@example.com', topic: 'support', message: 'Please call me back.' })
  assert.equal(sent.status, 302)
  assert.equal(path(sent), '/contact', "redirect({ route: 'contact' })")
  const named = cookieLine(sent, 'contact_name')!
  assert.match(named, /^contact_name=e\.[\w-]+; Max-Age=31536000; Path=\/; HttpOnly; SameSite=Lax$/, 'encrypted, HttpOnly, SameSite=Lax, not Secure over HTTP')
  assert.doesNotMatch(named, /Grace|R3JhY2U/, 'the value is not readable')

  const first = (await browser.get('/contact')).text
  assert.match(first, /<p class="success">Thanks, your message has been sent\.<\/p>/)
  assert.match(first, /Messages sent this session: 1</)
  assert.match(first, /<input name="name" value="Grace">/)
  const second = (await browser.get('/contact')).text
  assert.doesNotMatch(second, /Thanks, your message/, 'a flash lasts one request')
  assert.match(second, /Messages sent this session: 1</, 'session.put() lasts')

  const form = new FormData()
  for (const [k, v] of Object.entries({ __token: browser.csrf(), name: 'Grace', email: 'grace@example.com', topic: 'other', message: 'Sent as multipart.' })) form.append(k, v)
  const multipart = await browser.request('POST', '/contact', { multipart: form })
  assert.equal(multipart.status, 302, 'multipart fields are input like url-encoded ones')
  assert.match((await browser.get('/contact')).text, /Messages sent this session: 2</)
  assert.equal(mailLog().match(/^Subject: /gm)!.length, earlier + 2)
  assert.match(mailLog(), /^Subject: \[other\] Message from Grace$/m)

  const other = new Client(url)
  other.cookies.set('contact_name', browser.cookies.get('contact_name')!)
  const remembered = (await other.get('/contact')).text
  assert.match(remembered, /<input name="name" value="Grace">/, 'the cookie outlives the session')
  assert.doesNotMatch(remembered, /Messages sent this session/)
  const value = browser.cookies.get('contact_name')!
  other.cookies.set('contact_name', flip(value, 12))
  assert.match((await other.get('/contact')).text, /<input name="name" value="">/, 'a changed encrypted cookie reads as undefined')
})

test('bodies: 413 over 1 MiB, 400 malformed or too deep JSON, 415 other types and files, before CSRF', async () => {
  const browser = new Client(url)
  await browser.get('/contact')
  const headers = { ...JSON_HEADERS, 'x-csrf-token': token(browser) }
  const big = await browser.request('POST', '/contact', { body: `message=${'a'.repeat(1024 * 1024)}`, headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' } })
  assert.equal(big.status, 413)
  assert.equal(big.json().code, 'E_PAYLOAD_TOO_LARGE')
  const bigNoToken = await browser.request('POST', '/contact', { body: `message=${'a'.repeat(1024 * 1024)}`, headers: { ...JSON_HEADERS, 'content-type': 'application/x-www-form-urlencoded' } })
  assert.equal(bigNoToken.status, 413, 'the same answer without a token')
  const malformed = await browser.request('POST', '/contact', { body: '{"name":', headers: { ...headers, 'content-type': 'application/json' } })
  assert.equal(malformed.status, 400)
  assert.deepEqual(malformed.json(), { message: 'Malformed JSON in the request body.', code: 'E_BAD_REQUEST' })
  const nested = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth)
  const deep = await browser.request('POST', '/contact', { body: nested(65), headers: { ...headers, 'content-type': 'application/json' } })
  assert.equal(deep.status, 400)
  assert.equal(deep.json().code, 'E_BAD_REQUEST')
  const deepest = await browser.request('POST', '/contact', { body: nested(64), headers: { ...headers, 'content-type': 'application/json' } })
  assert.equal(deepest.status, 422, '64 levels are read (and then fail validation)')
  const array = await browser.request('POST', '/contact', { body: '[1]', headers: { ...headers, 'content-type': 'application/json' } })
  assert.equal(array.status, 400)
  const plain = await browser.request('POST', '/contact', { body: 'hello', headers: { ...headers, 'content-type': 'text/plain' } })
  assert.equal(plain.status, 415)
  assert.equal(plain.json().code, 'E_UNSUPPORTED_MEDIA_TYPE')
  const upload = new FormData()
  upload.append('__token', browser.csrf())
  upload.append('file', new Blob(['x']), 'x.txt')
  assert.equal((await browser.request('POST', '/contact', { multipart: upload, headers: JSON_HEADERS })).status, 415)
})

test('unique on the default connection, without regard to case; a model answers JSON without its hidden fields', async () => {
  const browser = new Client(url)
  await browser.get('/contact')
  const created = await browser.post('/subscribe', { newsletter_email: 'Ann@Example.com' }, { ...JSON_HEADERS, 'x-csrf-token': token(browser) })
  assert.equal(created.status, 200)
  const body = created.json()
  assert.equal(body.email, 'Ann@Example.com')
  assert.equal(typeof body.id, 'number')
  assert.ok(!('ip' in body), 'static hidden = [\'ip\']')

  const again = await browser.post('/subscribe', { __token: browser.csrf(), newsletter_email: 'ann@example.COM' }, { referer: `${url}/contact` })
  assert.equal(path(again), '/contact')
  const page = (await browser.get('/contact')).text
  assert.match(page, /<p class="error">That address is already subscribed\.<\/p>/)
  assert.match(page, /<input name="newsletter_email" type="email" value="ann@example.COM">/)

  const invalid = await browser.post('/subscribe', { __token: browser.csrf(), newsletter_email: 'not an address' })
  assert.equal(path(invalid), '/contact', "validate's back option, without a Referer")
  assert.match((await browser.get('/contact')).text, /<input name="newsletter_email" type="email" value="not an address">/)

  const fresh = await browser.post('/subscribe', { __token: browser.csrf(), newsletter_email: 'bob@example.com' })
  assert.equal(path(fresh), '/contact', "back('/contact') without a Referer")
  assert.match((await browser.get('/contact')).text, /<p class="success">You are subscribed\.<\/p>/)
})

test('a signed cookie round-trips; a changed, unsigned or moved one is ignored; clearCookie expires it', async () => {
  const browser = new Client(url)
  await browser.get('/contact')
  const set = await browser.post('/theme', { __token: browser.csrf(), theme: 'dark' }, { referer: `${url}/contact/sales` })
  assert.equal(path(set), '/contact/sales', 'back() to the Referer')
  const line = cookieLine(set, 'theme')!
  assert.match(line, /^theme=s\.ZGFyaw\.[\w-]{43}; Max-Age=31536000; Path=\/; HttpOnly; SameSite=Lax$/, 'signed (the value is readable), with the defaults')
  const page = (await browser.get('/contact')).text
  assert.match(page, /<html lang="en" data-theme="dark">/)
  assert.match(page, /<button name="theme" value="light">/)

  const signed = browser.cookies.get('theme')!
  const visitor = new Client(url)
  const theme = async () => /data-theme="(\w+)"/.exec((await visitor.get('/contact')).text)![1]
  visitor.cookies.set('theme', signed)
  assert.equal(await theme(), 'dark')
  visitor.cookies.set('theme', flip(signed, 10))
  assert.equal(await theme(), 'light', 'a changed MAC')
  visitor.cookies.set('theme', 'dark')
  assert.equal(await theme(), 'light', 'an unsigned value')
  visitor.cookies.delete('theme')
  visitor.cookies.set('contact_name', signed)
  assert.match((await visitor.get('/contact')).text, /<input name="name" value="">/, 'signed for another name')

  const cleared = await browser.post('/theme', { __token: browser.csrf(), theme: 'light' })
  assert.match(cookieLine(cleared, 'theme')!, /^theme=; Max-Age=0; Path=\/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Lax$/)
  assert.match((await browser.get('/contact')).text, /data-theme="light"/)
})

test('SESSION_DRIVER=database: the cookie holds only the signed id, and flash still works', async () => {
  const db = await app.serve({ SESSION_DRIVER: 'database' })
  try {
    const browser = new Client(db.url)
    const page = await browser.get('/contact')
    assert.match(cookieLine(page, 'trowel_session')!, /^trowel_session=s\.[\w-]+\.[\w-]{43}; Max-Age=7200; Path=\/; HttpOnly; SameSite=Lax$/, 'signed id, lifetime 120 minutes')
    await browser.post('/contact', { __token: browser.csrf(), name: 'Ada', email: 'nope' })
    assert.match((await browser.get('/contact')).text, /The e-mail address field must be a valid email address\./)
    const cookie = new Client(url)
    assert.match(cookieLine(await cookie.get('/contact'), 'trowel_session')!, /^trowel_session=e\./, 'the cookie driver encrypts the whole session')
  } finally {
    await db.stop()
  }
})

test('template errors: APP_DEBUG=true names the file, line and column; otherwise a page that says something went wrong', async () => {
  const original = app.read('templates/contact.html')
  const example = /line (\d+) of `templates\/contact\.html` changed to\s+`([^`]+)` gives\s+`(Template error in templates\/contact\.html at line \1, column \d+: [^`]+)`/.exec(DOC)
  assert.ok(example, 'the guide shows a template error')
  const lines = original.split('\n')
  lines[Number(example[1]) - 1] = example[2]!
  app.write('templates/contact.html', lines.join('\n'))
  const debug = await app.serve({ APP_DEBUG: 'true' })
  const quiet = await app.serve({ APP_DEBUG: 'false' })
  try {
    const browser = new Client(debug.url)
    const page = await browser.get('/contact')
    assert.equal(page.status, 500)
    assert.ok(page.text.includes(example[3]!), `the page shows: ${example[3]}`)
    const json = (await browser.get('/contact', JSON_HEADERS)).json()
    assert.equal(json.message, example[3])
    assert.equal(json.code, 'E_INTERNAL')
    assert.match(json.stack, /unexpected token/)
    const hidden = await new Client(quiet.url).get('/contact')
    assert.equal(hidden.status, 500)
    assert.match(hidden.text, /Something went wrong on our side\./)
    assert.doesNotMatch(hidden.text, /contact\.html|unexpected token/)
  } finally {
    await debug.stop()
    await quiet.stop()
    app.write('templates/contact.html', original)
  }
})
