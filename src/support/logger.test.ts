import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Logger, type LoggerOptions, type LogLevel } from './logger.js'

function capture(options: LoggerOptions = { format: 'text' }): { log: Logger; lines: string[]; levels: LogLevel[] } {
  const lines: string[] = []
  const levels: LogLevel[] = []
  const sink = (line: string, level: LogLevel) => {
    lines.push(line)
    levels.push(level)
  }
  return { log: new Logger({ sink, ...options }), lines, levels }
}

/** Runs `fn` with LOG_FORMAT set to `value` (unset when undefined), then restores it. */
function withLogFormat<T>(value: string | undefined, fn: () => T): T {
  const before = process.env.LOG_FORMAT
  if (value === undefined) delete process.env.LOG_FORMAT
  else process.env.LOG_FORMAT = value
  try {
    return fn()
  } finally {
    if (before === undefined) delete process.env.LOG_FORMAT
    else process.env.LOG_FORMAT = before
  }
}

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/

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

  it('writes text when LOG_FORMAT is unset, empty or text', () => {
    for (const value of [undefined, '', 'text', 'TEXT']) {
      const { log, lines } = withLogFormat(value, () => capture({}))
      assert.equal(log.format, 'text', String(value))
      log.info('auth.login', { user_id: 7 })
      assert.equal(lines.length, 1, String(value))
      assert.match(lines[0]!, /^\S+Z INFO auth\.login \{"user_id":7\}$/)
    }
  })
})

describe('Logger, LOG_FORMAT=json', () => {
  const json = (): ReturnType<typeof capture> => capture({ format: 'json' })

  it('is read from LOG_FORMAT when the logger is built; the format option wins over it', () => {
    assert.equal(withLogFormat('json', () => new Logger({ sink: () => {} })).format, 'json')
    assert.equal(withLogFormat(' JSON ', () => new Logger({ sink: () => {} })).format, 'json')
    assert.equal(withLogFormat('json', () => new Logger({ sink: () => {}, format: 'text' })).format, 'text')
    const log = withLogFormat('json', () => new Logger({ sink: () => {} }))
    withLogFormat('text', () => assert.equal(log.format, 'json', 'read once, at construction'))
  })

  it('writes one JSON object per line: time, level, event, then the fields', () => {
    const { log, lines } = json()
    log.info('auth.login', { guard: 'web', user_id: 7, ip: '127.0.0.1' })
    log.warn('auth.throttled', { retry_after: 60 })
    log.info('bare')
    assert.equal(lines.length, 3)
    for (const line of lines) assert.doesNotMatch(line, /\n/)
    const [first, second, third] = lines.map((line) => JSON.parse(line))
    assert.deepEqual(Object.keys(first), ['time', 'level', 'event', 'guard', 'user_id', 'ip'])
    assert.match(first.time, ISO)
    assert.deepEqual({ ...first, time: 'T' }, { time: 'T', level: 'info', event: 'auth.login', guard: 'web', user_id: 7, ip: '127.0.0.1' })
    assert.deepEqual({ ...second, time: 'T' }, { time: 'T', level: 'warn', event: 'auth.throttled', retry_after: 60 })
    assert.deepEqual({ ...third, time: 'T' }, { time: 'T', level: 'info', event: 'bare' })
  })

  it('redacts fields named like secrets, at any depth, as the text format does', () => {
    const { log, lines } = json()
    log.info('auth.login', { user_id: 7, password: 'hunter2 hunter2', api_token: 'abc', nested: { cookie: 'c', list: [{ authorization: 'Bearer x' }] } })
    const line = JSON.parse(lines[0]!)
    assert.equal(line.password, '[redacted]')
    assert.equal(line.api_token, '[redacted]')
    assert.deepEqual(line.nested, { cookie: '[redacted]', list: [{ authorization: '[redacted]' }] })
    assert.doesNotMatch(lines[0]!, /hunter2|"abc"|Bearer x/)
  })

  it('writes an error as name, message, stack and cause', () => {
    const { log, lines } = json()
    const cause = new TypeError('Template error in templates/home.html at line 3')
    log.error('http.error', { error: new Error('Internal server error.', { cause }) })
    const { error } = JSON.parse(lines[0]!)
    assert.equal(error.name, 'Error')
    assert.equal(error.message, 'Internal server error.')
    assert.match(error.stack, /^Error: Internal server error\.\n\s+at /)
    assert.equal(error.cause.name, 'TypeError')
    assert.match(error.cause.message, /templates\/home\.html at line 3/)
  })

  it('keeps its own keys: a field named time, level or event is written as field_<name>', () => {
    const { log, lines } = json()
    log.info('auth.login', { event: 'auth:login_succeeded', level: 3, time: 'then', user_id: 7 })
    const line = JSON.parse(lines[0]!)
    assert.equal(line.event, 'auth.login')
    assert.equal(line.level, 'info')
    assert.match(line.time, ISO)
    assert.equal(line.field_event, 'auth:login_succeeded')
    assert.equal(line.field_level, 3)
    assert.equal(line.field_time, 'then')
    assert.equal(line.user_id, 7)
    assert.equal((lines[0]!.match(/"event":/g) ?? []).length, 1, 'no duplicate key')
  })

  it('stays one object when handed something other than a record: an Error, an array', () => {
    const { log, lines } = json()
    log.error('odd', new Error('boom') as unknown as Record<string, unknown>)
    log.info('odd', [{ password: 'p' }] as unknown as Record<string, unknown>)
    const [error, list] = lines.map((line) => JSON.parse(line))
    assert.equal(error.event, 'odd')
    assert.equal(error.message, 'boom')
    assert.deepEqual(list.fields, [{ password: '[redacted]' }])
  })

  it('escapes what it writes: an event or a value with quotes and newlines stays one line', () => {
    const { log, lines } = json()
    log.info('odd "event"\nname', { ip: '1.2.3.4"\n{"forged":true}' })
    assert.equal(lines.length, 1)
    assert.doesNotMatch(lines[0]!, /\n/)
    const line = JSON.parse(lines[0]!)
    assert.equal(line.event, 'odd "event"\nname')
    assert.equal(line.forged, undefined)
  })

  it('drops lines below its level and hands the sink each line with its level', () => {
    const { log, lines, levels } = capture({ format: 'json', level: 'warn' })
    log.debug('noise')
    log.info('auth.login')
    log.warn('auth.throttled')
    log.error('http.error')
    assert.deepEqual(lines.map((l) => JSON.parse(l).event), ['auth.throttled', 'http.error'])
    assert.deepEqual(levels, ['warn', 'error'])
    const debug = capture({ format: 'json', level: 'debug' })
    debug.log.debug('noise', { a: 1 })
    assert.equal(JSON.parse(debug.lines[0]!).level, 'debug')
  })
})

describe('Logger, an unknown LOG_FORMAT', () => {
  it('falls back to text and writes one warning when built', () => {
    const { log, lines, levels } = withLogFormat('yaml', () => capture({}))
    assert.equal(log.format, 'text')
    assert.equal(lines.length, 1)
    assert.deepEqual(levels, ['warn'])
    assert.match(lines[0]!, /^\S+Z WARN log\.format_unknown \{/)
    assert.deepEqual(JSON.parse(lines[0]!.slice(lines[0]!.indexOf('{'))), { value: 'yaml', known: 'text, json', using: 'text' })
    log.info('auth.login', { user_id: 7 })
    assert.equal(lines.length, 2, 'one warning, not one per line')
    assert.match(lines[1]!, / INFO auth\.login \{"user_id":7\}$/)
  })

  it('an unknown format option does the same', () => {
    const { log, lines } = capture({ format: 'xml' as 'json' })
    assert.equal(log.format, 'text')
    assert.equal(lines.length, 1)
    assert.match(lines[0]!, / WARN log\.format_unknown /)
  })
})
