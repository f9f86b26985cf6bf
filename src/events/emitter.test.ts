import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Emitter } from './emitter.js'

describe('Emitter', () => {
  it('calls the listeners of a name in the order they were added, with the payload', () => {
    const events = new Emitter()
    const seen: string[] = []
    events.on('a', (p) => seen.push(`1:${String(p)}`))
    events.on('a', (p) => seen.push(`2:${String(p)}`))
    events.on('b', () => seen.push('b'))
    events.emit('a', 'x')
    assert.deepEqual(seen, ['1:x', '2:x'])
  })

  it('reports a throwing listener and still calls the next one; emit never throws', () => {
    const errors: [unknown, string][] = []
    const events = new Emitter((error, name) => errors.push([error, name]))
    let after = false
    events.on('a', () => { throw new Error('boom') })
    events.on('a', () => { after = true })
    assert.doesNotThrow(() => events.emit('a', null))
    assert.equal(after, true)
    assert.equal(errors.length, 1)
    assert.equal(errors[0]![1], 'a')
  })

  it('reports a rejected promise of an async listener', async () => {
    const errors: unknown[] = []
    const events = new Emitter((error) => errors.push(error))
    events.on('a', async () => { throw new Error('later') })
    events.emit('a', null)
    await new Promise((r) => setImmediate(r))
    assert.equal((errors[0] as Error).message, 'later')
  })

  it('on() returns a remover; off() removes one listener', () => {
    const events = new Emitter()
    let n = 0
    const remove = events.on('a', () => n++)
    events.emit('a', null)
    remove()
    events.emit('a', null)
    assert.equal(n, 1)
    assert.equal(events.listenerCount('a'), 0)
  })
})

describe('events (the booted app\'s emitter)', () => {
  it('refuses use before an app has booted, then speaks for the emitter it was given', async () => {
    const { events, setCurrentEvents } = await import('./current-events.js')
    setCurrentEvents(null)
    assert.throws(() => events.on('a', () => {}), /E_NO_APP|before an app has booted/)
    const emitter = new Emitter()
    setCurrentEvents(emitter)
    const seen: unknown[] = []
    const remove = events.on('a', (p) => seen.push(p))
    emitter.emit('a', 1)
    events.emit('a', 2)
    remove()
    events.emit('a', 3)
    assert.deepEqual(seen, [1, 2])
    setCurrentEvents(null)
  })
})
