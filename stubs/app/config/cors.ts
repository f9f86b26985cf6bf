/**
 * Cross-origin requests (CORS). `origins`: the exact origins (scheme://host[:port]) of the front
 * ends on other origins that may call this app, e.g. ['https://app.example.com']; no wildcards.
 * `CORS_ORIGINS` (comma-separated), when set, replaces `origins`. Empty: no CORS at all.
 * `credentials`: let those origins send cookies (only useful on the same site; see
 * docs/spa-and-mobile.md). `max_age`: seconds a browser may cache a preflight answer.
 */
export const CORS = { origins: [], credentials: false, max_age: 600 }
