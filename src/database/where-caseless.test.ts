import { test } from 'node:test'
import assert from 'node:assert/strict'
import knexFactory from 'knex'
import { whereCaseless } from './where-caseless.js'

test('whereCaseless folds both sides with lower(); on MySQL also an indexable email = ? (no connection needed)', async () => {
  const sqlOf = (client: string) => {
    const knex = knexFactory({ client, useNullAsDefault: true })
    const sql = whereCaseless(knex('users').select('id'), 'email', 'Ann@Example.com').toSQL().toNative()
    void knex.destroy()
    return sql
  }
  assert.deepEqual(sqlOf('pg'), { sql: 'select "id" from "users" where lower("email") = lower($1)', bindings: ['Ann@Example.com'] })
  assert.deepEqual(sqlOf('mysql2'), { sql: 'select `id` from `users` where `email` = ? and lower(`email`) = lower(?)', bindings: ['Ann@Example.com', 'Ann@Example.com'] })
})
