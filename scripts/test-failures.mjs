// A test reporter that prints nothing until the run ends, then each failed test, by file and name,
// with the first lines of its error. `npm test` adds it after the TAP report when the output is
// not a terminal (a CI log), where a failure's own lines can be thousands of lines above the end.
// A suite that failed only because a test in it did is left out: the test is listed.
import { relative } from 'node:path'

const root = new URL('..', import.meta.url).pathname
// A compiled test file (scripts/test.mjs) is `<cache>/<place>/<path of the source>.js`.
const COMPILED = /\/\d{4}\/((?:src|test)\/.+)\.js$/

const UNIT = /^src\/.+\.test\.ts$/

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
  // The names of the tests running, by nesting: the runner reports a file's events in order, one
  // file after another, as its own reporters rely on.
  const running = []
  const failed = []
  const note = ({ type, data }) => {
    if (type === 'test:start') {
      running.length = data.nesting
      running.push(data.name)
    } else if (type === 'test:fail' && data.details?.error?.failureType !== 'subtestsFailed') {
      const path = running.slice(0, data.nesting)
      let file = sourceOf(data.file)
      let names = [...path, data.name]
      // A group of unit files (scripts/test.mjs) has a suite per file, named by its path.
      if (UNIT.test(names[0])) [file, names] = [names[0], names.slice(1)]
      // The file's own entry (named by its path) fails when its process does, for example at load.
      const name = names.length === 0 || data.name === data.file ? '(the file itself; its output is in the report above)' : names.join(' > ')
      failed.push({ file, name, lines: firstLines(data.details?.error, 12) })
    }
  }
  for await (const event of source) {
    try {
      note(event)
    } catch (error) {
      // The list is a convenience: a slip here must never stop the run or hide the TAP report.
      failed.push({ file: '(scripts/test-failures.mjs)', name: `could not read a ${event.type} event`, lines: firstLines(error, 3) })
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
