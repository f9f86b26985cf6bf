/**
 * Slugs: lower case, diacritics removed, other runs to `-`, trimmed, at most 48 characters, `org`
 * when empty, `-2`, `-3`, … on collision (still within 48 characters).
 */
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { SLUG_MAX, SLUG_SHAPE, slugify, uniqueSlug, withSuffix } from './slug.js'

describe('slugify', () => {
  it('lower-cases, strips diacritics and joins other runs with one dash', () => {
    assert.equal(slugify('Acme Inc.'), 'acme-inc')
    assert.equal(slugify('Café Société'), 'cafe-societe')
    assert.equal(slugify('  Ünïcödé   & Co!! '), 'unicode-co')
    assert.equal(slugify('Straße 42'), 'stra-e-42')
    assert.equal(slugify('a__b--c'), 'a-b-c')
  })

  it('is `org` when nothing is left', () => {
    assert.equal(slugify(''), 'org')
    assert.equal(slugify(' *** '), 'org')
    assert.equal(slugify('日本語'), 'org')
  })

  it('keeps at most 48 characters and never ends with a dash', () => {
    const long = slugify(`${'a'.repeat(47)} bcd`)
    assert.equal(long, 'a'.repeat(47))
    assert.ok(slugify('x'.repeat(100)).length === SLUG_MAX)
    for (const name of ['Acme', 'x'.repeat(100), 'Café Société', `${'a'.repeat(47)} b`]) assert.match(slugify(name), SLUG_SHAPE)
  })
})

describe('uniqueSlug', () => {
  it('adds -2, -3, … on collision', () => {
    assert.equal(uniqueSlug('acme', new Set()), 'acme')
    assert.equal(uniqueSlug('acme', new Set(['acme'])), 'acme-2')
    assert.equal(uniqueSlug('acme', new Set(['acme', 'acme-2', 'acme-3'])), 'acme-4')
  })

  it('shortens the base so the suffix fits within 48 characters', () => {
    const base = 'b'.repeat(SLUG_MAX)
    const next = uniqueSlug(base, new Set([base]))
    assert.equal(next, `${'b'.repeat(SLUG_MAX - 2)}-2`)
    assert.equal(next.length, SLUG_MAX)
    assert.equal(withSuffix(base, 10).length, SLUG_MAX)
  })
})
