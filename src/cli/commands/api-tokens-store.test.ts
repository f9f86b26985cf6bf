import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTableStore, storeOption } from './api-tokens-store.js'

function file(contents: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'trowel-store-')), 'api.ts')
  writeFileSync(path, contents)
  return path
}

describe('api:install --store', () => {
  it('accepts column and table only', () => {
    assert.equal(storeOption(undefined), 'column')
    assert.equal(storeOption('TABLE'), 'table')
    assert.throws(() => storeOption('redis'), /Unknown --store "redis"/)
  })

  it("writes store: 'table' as the jwt driver's first key, once", () => {
    const path = file("export const DRIVERS = {\n  default: 'jwt',\n  jwt: { algorithm: 'HS512', expires: null },\n}\n")
    assert.equal(setTableStore(path), 'changed')
    assert.match(readFileSync(path, 'utf8'), /jwt: \{ store: 'table', algorithm: 'HS512'/)
    assert.equal(setTableStore(path), 'present')
    assert.equal((readFileSync(path, 'utf8').match(/store:/g) ?? []).length, 1)
  })

  it("turns store: 'column' into 'table'; leaves a file without a jwt driver alone", () => {
    const path = file("export const DRIVERS = { jwt: { store: 'column', algorithm: 'HS512' } }\n")
    assert.equal(setTableStore(path), 'changed')
    assert.match(readFileSync(path, 'utf8'), /store: 'table', algorithm/)
    const other = file('export const DRIVERS = {}\n')
    assert.equal(setTableStore(other), 'refused')
    assert.equal(readFileSync(other, 'utf8'), 'export const DRIVERS = {}\n')
  })
})
