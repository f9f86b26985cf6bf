import { env } from 'trowel'

export const MAIL = {
  /** smtp, terminal (prints messages) or log (appends to storage/logs/mail.log) */
  driver: env('MAIL_DRIVER', 'terminal'),
  from: env('MAIL_FROM_ADDRESS', 'no-reply@example.test'),
  host: env('MAIL_HOST', '127.0.0.1'),
  port: Number(env('MAIL_PORT', '587')),
  username: env('MAIL_USERNAME'),
  password: env('MAIL_PASSWORD'),
}
