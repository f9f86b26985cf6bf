import { env } from 'trowel'

export const DATABASES = {
  default: env('DB_CONNECTION', 'sqlite'),
  sqlite: { driver: 'sqlite', database: env('DB_DATABASE', 'storage/database.sqlite') },
  postgres: { driver: 'postgres', url: env('DATABASE_URL'), pool: { min: 0, max: 10 } },
  mysql: { driver: 'mysql', url: env('DATABASE_URL'), pool: { min: 0, max: 10 } },
}
