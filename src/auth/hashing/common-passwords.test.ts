import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { commonPasswordsHeader, extractCommonPasswords, isCommonPassword, loadCommonPasswords } from './common-passwords.js'

describe('the common-password list', () => {
  it('is read from the package build when taken from the installed package, else from the package', () => {
    const extracted = extractCommonPasswords()
    // The package's dist/ (npm test builds it first) holds exactly what the package gives now.
    assert.equal(loadCommonPasswords(), extracted)
    const dir = mkdtempSync(join(tmpdir(), 'trowel-common-passwords-'))
    try {
      const file = join(dir, 'common-passwords.txt')
      writeFileSync(file, `${commonPasswordsHeader()}\nprebuilt\nlist`)
      assert.equal(loadCommonPasswords(file), 'prebuilt\nlist', 'the same version: the file is used')
      writeFileSync(file, `# @zxcvbn-ts/language-common@0.0.1 passwords-common\nstale`)
      assert.equal(loadCommonPasswords(file), extracted, 'another version: taken from the package')
      assert.equal(loadCommonPasswords(join(dir, 'missing.txt')), extracted, 'no file: taken from the package')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('holds each entry once, lower-cased, one a line', () => {
    const entries = extractCommonPasswords().split('\n')
    assert.ok(entries.length >= 10_000, `${entries.length} entries`)
    assert.equal(new Set(entries).size, entries.length)
    assert.ok(entries.every((entry) => entry !== '' && entry === entry.toLowerCase()))
  })

  it('matches whole entries only: not a part of one, nor two entries across a line break', () => {
    const entries = extractCommonPasswords().split('\n')
    const [first, second] = entries
    const all = new Set(entries)
    const longer = entries.find((entry) => entry.length > 8 && !all.has(entry.slice(1)) && !all.has(entry.slice(0, -1)))!
    assert.equal(isCommonPassword(first!), true)
    assert.equal(isCommonPassword(second!.toUpperCase()), true, 'case-insensitive')
    assert.equal(isCommonPassword(longer), true)
    assert.equal(isCommonPassword(longer.slice(1)), false, 'the end of an entry')
    assert.equal(isCommonPassword(longer.slice(0, -1)), false, 'the start of an entry')
    assert.equal(isCommonPassword(`${first}\n${second}`), false, 'two entries')
    assert.equal(isCommonPassword(`${first}\r`), false)
    assert.equal(isCommonPassword(''), false)
    assert.equal(isCommonPassword('password'), true)
    assert.equal(isCommonPassword('correct horse battery staple and more'), false)
  })
})
