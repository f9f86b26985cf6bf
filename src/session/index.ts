/**
 * @module session
 * Sessions, flash data, old input, CSRF protection and the session stores.
 */
export { Session, randomToken } from './session.js'
export type { SessionData, SessionStore, RequestBoundSessionStore, BoundSessionStore, SessionCookieSettings } from './session-store.js'
export { SESSION_DRIVERS, SESSION_DEFAULTS, resolveSessionConfig, type SessionConfig, type SessionDriver } from './session-config.js'
export { createSessionStore, KNEX_BINDINGS } from './create-session-store.js'
export { SessionMiddleware, startSession, saveSession, sessionConfig, sessionStore } from './session-middleware.js'
export { VerifyCsrfTokenMiddleware, CSRF_PROTECTED_METHODS, submittedToken, tokensMatch } from './verify-csrf-token-middleware.js'
export { csrfField } from './csrf-field.js'
export { SessionProvider } from './session-provider.js'
export { sessionsTableMigration } from './sessions-table-migration.js'
export { CookieSessionStore, SessionTooLargeError, MAX_COOKIE_BYTES } from './stores/cookie-session-store.js'
export { MemorySessionStore } from './stores/memory-session-store.js'
export { DatabaseSessionStore, type DatabaseSessionStoreOptions } from './stores/database-session-store.js'
export { RedisSessionStore, REDIS_SESSION_PREFIX, type RedisSessionStoreOptions } from './stores/redis-session-store.js'
