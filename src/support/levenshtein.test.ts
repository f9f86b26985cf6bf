import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { closestMatch, levenshtein } from './levenshtein.js'

describe('levenshtein', () => {
  it('counts insertions, deletions, substitutions and adjacent swaps', () => {
    assert.equal(levenshtein('show', 'show'), 0)
    assert.equal(levenshtein('', 'abc'), 3)
    assert.equal(levenshtein('PostController', 'PostsController'), 1)
    assert.equal(levenshtein('shwo', 'show'), 1)
    assert.equal(levenshtein('kitten', 'sitting'), 3)
  })

  it('closestMatch: the nearest candidate within 1 edit (short) or 2 (6 characters and more)', () => {
    assert.equal(closestMatch('shwo', ['index', 'show', 'store']), 'show')
    assert.equal(closestMatch('sho', ['show', 'store']), 'show')
    assert.equal(closestMatch('sh', ['show']), undefined)
    assert.equal(closestMatch('PostControler', ['PostsController', 'UsersController']), 'PostsController')
    assert.equal(closestMatch('postscontroller', ['PostsController']), 'PostsController', 'case differences count for nothing')
    assert.equal(closestMatch('Billing', ['PostsController']), undefined)
    assert.equal(closestMatch('show', ['show']), undefined, 'an exact match is not a suggestion')
  })
})
