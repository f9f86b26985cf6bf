/**
 * @module trowel/testing
 * Testing helpers for app authors: `TestClient`, an in-process HTTP client with a cookie jar,
 * CSRF handling, `actingAs(user)`, `withToken(user)` and assertions on `TestResponse`.
 * See docs/testing.md.
 */
export { TestClient, type TestClientOptions, type RequestOptions } from './test-client.js'
export { TestResponse } from './test-response.js'
export { fakeMail, FakeMail, SentMail, type MailMatcher } from './fake-mail.js'
export { CookieStore } from './cookie-store.js'
export { inject, fakeIncomingMessage, type InjectRequest, type InjectResponse, type RequestListener } from './inject.js'
export { FakeUserProvider, FakeUser } from './fake-user-provider.js'
export { fakeContext } from './fake-context.js'
export { FakeHasher } from './fake-hasher.js'
export { FakeLoginTokens } from './fake-login-tokens.js'
