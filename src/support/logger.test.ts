import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Logger } from './logger.js'

function capture(): { log: Logger; lines: string[] } {
  const lines: string[] = []
  return { log: new Logger({ sink: (line) => lines.push(line) }), lines }
}

describe('Logger', () => {
  it('writes one line: time, level, event, JSON fields; secrets by name are redacted', () => {
    const { log, lines } = capture()
    log.info('auth.login', { user_id: 7, ip: '127.0.0.1', password: 'hunter2 hunter2', api_token: 'abc', nested: { cookie: 'c' } })
    assert.equal(lines.length, 1)
    assert.match(lines[0]!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z INFO auth\.login \{/)
    const fields = JSON.parse(lines[0]!.slice(lines[0]!.indexOf('{')))
    assert.deepEqual(fields, { user_id: 7, ip: '127.0.0.1', password: '[redacted]', api_token: '[redacted]', nested: { cookie: '[redacted]' } })
  })

  it('writes an error with its cause (a template error locates itself there)', () => {
    const { log, lines } = capture()
    const cause = new Error('Template error in templates/home.html at line 3, column 9: Unable to call `x`')
    log.error('http.error', { error: new Error('Internal server error.', { cause }) })
    const fields = JSON.parse(lines[0]!.slice(lines[0]!.indexOf('{')))
    assert.equal(fields.error.message, 'Internal server error.')
    assert.match(fields.error.cause.message, /templates\/home\.html at line 3/)
  })

  it('drops events below its level', () => {
    const { log, lines } = capture()
    log.debug('noise')
    assert.equal(lines.length, 0)
  })
})
