import { env } from 'trowel'

export const APPLICATION = {
  name: env('APP_NAME', 'Trowel'),
  /** Links in e-mails are built from this, never from the request's Host header. */
  url: env('APP_URL', 'http://localhost:8000'),
  debug: env('APP_DEBUG', false),
}
