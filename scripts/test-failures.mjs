// A test reporter that prints nothing until the run ends, then each failed test, by file and name,
// with the first lines of its error. `npm test` adds it after the TAP report when the output is
// not a terminal (a CI log), where a failure's own lines can be thousands of lines above the end.
// A suite that failed only because a test in it did is left out: the test is listed.
import { relative } from 'node:path'

const root = new URL('..', import.meta.url).pathname
// A compiled test file (scripts/test.mjs) is `<cache>/<place>/<path of the source>.js`.
const COMPILED = /\/\d{4}\/((?:src|test)\/.+)\.js$/

function sourceOf(file) {
  if (!file) return '(no file)'
  const compiled = COMPILED.exec(file)
  return compiled ? `${compiled[1]}.ts` : relative(root, file)
}

function firstLines(error, count) {
  const cause = error?.code === 'ERR_TEST_FAILURE' && error.cause ? error.cause : error
  const text = cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause)
  return text.split('\n').slice(0, count).map((line) => (line.length > 400 ? `${line.slice(0, 400)}...` : line))
}

export default async function* failures(source) {
  const names = new Map()
  const failed = []
  for await (const event of source) {
    const { type, data } = event
    if (type === 'test:start') {
      const path = names.get(data.file) ?? []
      path.length = data.nesting
      path.push(data.name)
      names.set(data.file, path)
    } else if (type === 'test:fail' && data.details?.error?.failureType !== 'subtestsFailed') {
      const path = (names.get(data.file) ?? []).slice(0, data.nesting)
      // The file's own entry (named by its path) fails when its process does, for example at load.
      const name = data.name === data.file ? '(the file itself; its output is in the report above)' : [...path, data.name].join(' > ')
      failed.push({ file: sourceOf(data.file), name, lines: firstLines(data.details?.error, 12) })
    }
  }
  if (failed.length === 0) return
  let out = `# failed tests: ${failed.length}\n`
  for (const f of failed) {
    out += `# not ok: ${f.file}: ${f.name}\n`
    for (const line of f.lines) out += line.trim() ? `#   ${line}\n` : '#\n'
  }
  yield out
}
