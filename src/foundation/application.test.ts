import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Application } from './application.js'

const turn = () => new Promise((resolve) => setImmediate(resolve))

describe('Application.background and shutdown', () => {
  it('runs the work after the current turn, and hands a failure to onError', async () => {
    const app = new Application('.')
    const events: string[] = []
    app.background(async () => void events.push('ran'), () => events.push('error'))
    app.background(async () => {
      throw new Error('lost connection')
    }, (error) => events.push(`failed: ${(error as Error).message}`))
    events.push('answered')
    await turn()
    await turn()
    assert.deepEqual(events, ['answered', 'ran', 'failed: lost connection'])
  })

  it('shutdown lets the work, and the work it starts, finish before the hooks run', async () => {
    const app = new Application('.')
    const events: string[] = []
    app.onShutdown(() => void events.push('pools closed'))
    let release = () => {}
    app.background(
      async () => {
        await new Promise<void>((resolve) => (release = resolve))
        events.push('looked up')
        app.background(async () => void events.push('mail sent'), () => {})
      },
      () => {},
    )
    await turn()
    const stopped = app.shutdown()
    await turn()
    assert.deepEqual(events, [], 'the hooks wait for the work under way')
    release()
    await stopped
    assert.deepEqual(events, ['looked up', 'mail sent', 'pools closed'])
  })

  it('shutdown with nothing under way runs the hooks at once, and a throwing onError is contained', async () => {
    const app = new Application('.')
    const events: string[] = []
    app.onShutdown(() => void events.push('closed'))
    app.background(
      async () => {
        throw new Error('first')
      },
      () => {
        throw new Error('the logger failed too')
      },
    )
    await app.shutdown()
    assert.deepEqual(events, ['closed'])
  })
})
