import { env } from 'trowel'

export const SESSION = {
  /** cookie (default: the session lives encrypted in the cookie), memory, database or redis */
  driver: env('SESSION_DRIVER', 'cookie'),
  cookie: 'trowel_session',
  /** Minutes of inactivity after which a session ends. */
  lifetime: 120,
  /** Minutes after which a session ends whatever its activity. */
  absolute_lifetime: 10080,
  redis_url: env('REDIS_URL'),
  table: 'sessions',
}
