// Your app's tests: `npm test` (or `node craft test`) runs every tests/**/*.test.ts with node:test.
// TestClient boots the app in this process and talks to it without a port; on SQLite each test
// file gets a fresh, migrated in-memory database, and the app's mails are kept in memory
// (`client.mail`), never sent or printed. See docs/testing.md in the Trowel repository.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { TestClient } from 'trowel/testing'
import { User } from '../app/models/User.js'

let client: TestClient

before(async () => {
  client = await TestClient.create()
})

after(async () => {
  await client.close()
})

/** A new address per run, so the tests also pass against a PostgreSQL or MySQL test database that outlives them. */
function uniqueEmail(name: string): string {
  return `${name}.${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}@example.com`
}

async function makeUser(email: string) {
  return User.create({ name: 'Ada Lovelace', email, password: await client.hashPassword('correct horse battery staple') })
}

test('the welcome page answers', async () => {
  const response = await client.get('/')
  response.assertOk().assertSee('Welcome to Trowel')
})

test('an unknown page is a 404', async () => {
  const response = await client.get('/no-such-page')
  response.assertNotFound()
})

test('actingAs logs a user in', async () => {
  const user = await makeUser(uniqueEmail('ada'))
  const browser = client.newClient()
  await browser.actingAs(user)
  const response = await browser.get('/')
  response.assertOk().assertSee('Signed in as Ada Lovelace')
})

// The tests below run once you have added the login pages (`node craft auth` and
// `...Auth.routes()` in routes/web.ts) and the JWT API (docs/jwt-api.md); until then they skip.

test('register, see /home, log out', async (t) => {
  if (!client.app.router.has('register')) return t.skip('no login pages yet: run node craft auth')
  const browser = client.newClient()
  const email = uniqueEmail('grace')
  const registered = await browser.post('/register', {
    name: 'Grace Hopper',
    email,
    password: 'a long and unusual passphrase',
    password_confirmation: 'a long and unusual passphrase',
  })
  registered.assertRedirect('/home')
  ;(await browser.get('/home')).assertOk().assertSee('Grace Hopper')
  // The verification e-mail leaves after the answer: wait for it, then follow its link.
  const mail = await client.mail.waitFor(email)
  assert.equal(mail.subject, 'Verify your e-mail address')
  const link = new URL(mail.links().find((url) => url.includes('/email/verify/'))!)
  ;(await browser.get(link.pathname)).assertOk()
  ;(await browser.post('/logout')).assertRedirect('/login')
  ;(await browser.get('/home')).assertRedirect('/login')
})

test('a wrong password goes back to /login', async (t) => {
  if (!client.app.router.has('login')) return t.skip('no login pages yet: run node craft auth')
  const user = await makeUser(uniqueEmail('wrong-password'))
  const browser = client.newClient()
  const response = await browser.post('/login', { email: user.email, password: 'not the password' })
  response.assertRedirect('/login')
  ;(await browser.get('/login')).assertSee('The email or password is incorrect.')
})

test('the API answers a token holder and refuses everyone else', async (t) => {
  // routes/api.ts as in docs/jwt-api.md: Route.get('/me', ...).name('api.me')
  if (!client.app.has('api.jwt') || !client.app.router.has('api.me')) return t.skip('the JWT API is not installed (docs/jwt-api.md)')
  const user = await makeUser(uniqueEmail('api'))
  const issued = await client.postJson('/api/auth', { username: user.email, password: 'correct horse battery staple' })
  issued.assertOk()
  ;(await client.newClient().getJson('/api/me')).assertUnauthorized().assertJson({ code: 'E_TOKEN_MISSING' })
  const api = await client.newClient().withToken(user)
  ;(await api.getJson('/api/me')).assertOk().assertJson({ data: { email: user.email } })
  ;(await client.postJson('/api/auth', { username: user.email, password: 'nope' }))
    .assertUnauthorized()
    .assertJson({ code: 'E_INVALID_CREDENTIALS' })
})
