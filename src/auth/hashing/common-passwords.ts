/**
 * @module auth/hashing/common-passwords
 * The list of common passwords the policy refuses: the 49,233-entry "passwords-common"
 * dictionary of `@zxcvbn-ts/language-common` (MIT; drawn from leaked-password corpora, all
 * lower case).
 *
 * The package ships it compressed, beside its other dictionaries; decompressing it and keeping
 * it as a `Set` took about 45 ms of CPU and 2 MB of heap in every process that checked a new
 * password. So the package's build writes it out once (scripts/build.mjs):
 * `dist/assets/common-passwords.txt`, one lower-cased password a line, headed by the package and
 * version it was taken from. A process reads that file on first use (about 1 ms) and keeps it as
 * one string of 0.4 MB, in which a password is looked up as a whole line (about 0.2 ms: only
 * registration and password changes ask). Any version's list will do (a later patch release of
 * the package need not cost every process the extraction again), but only a whole one: a file
 * with another header or fewer than 10,000 entries is passed over, and the list is taken from
 * the package, as it is when running from the sources.
 */
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { FRAMEWORK_ROOT } from '../../support/framework-root.js'
import { readPrebuilt } from '../../support/prebuilt.js'

interface LanguageCommon {
  dictionary: Record<string, readonly string[]>
}

/** Where the package's build writes the list. */
export const PREBUILT_COMMON_PASSWORDS = join(FRAMEWORK_ROOT, 'dist', 'assets', 'common-passwords.txt')

const PACKAGE = '@zxcvbn-ts/language-common'

/** Fewer entries than this means a truncated or foreign file: every password would pass it. */
const MIN_ENTRIES = 10_000

/** The first line of the prebuilt file: the package and version the list was taken from. */
export function commonPasswordsHeader(): string {
  const { version } = createRequire(import.meta.url)(`${PACKAGE}/package.json`) as { version: string }
  return `# ${PACKAGE}@${version} passwords-common`
}

/** The list, taken from the package now: lower-cased, each once, one a line. */
export function extractCommonPasswords(): string {
  const { dictionary } = createRequire(import.meta.url)(PACKAGE) as LanguageCommon
  const list = dictionary['passwords-common']
  if (!Array.isArray(list) || list.length < MIN_ENTRIES) {
    throw new Error(`${PACKAGE} no longer ships its passwords-common dictionary.`)
  }
  // A line break would let a look-up match across two entries; no entry has one.
  const lines = new Set(list.map((password) => password.toLowerCase()).filter((password) => password !== '' && !/[\r\n]/.test(password)))
  return [...lines].join('\n')
}

/** A header the build writes, from any version of the package. */
const HEADER = /^# @zxcvbn-ts\/language-common@\d+\.\d+\.\d+\S* passwords-common$/

/** Whether `text` has at least `count` line breaks (stops counting there). */
function hasLines(text: string, count: number): boolean {
  for (let at = -1, seen = 0; seen < count; seen++) {
    at = text.indexOf('\n', at + 1)
    if (at === -1) return false
  }
  return true
}

/** The prebuilt list at `path` when it is a whole list from the package, else the package's own. */
export function loadCommonPasswords(path = PREBUILT_COMMON_PASSWORDS): string {
  return readPrebuilt(path, (header, body) => HEADER.test(header) && hasLines(body, MIN_ENTRIES - 1)) ?? extractCommonPasswords()
}

/** `\n` + the list + `\n`: every entry has a line break on both sides. */
let lines: string | undefined

/** `true` when `password`, compared case-insensitively, is in the common-passwords list. */
export function isCommonPassword(password: string): boolean {
  const lower = password.toLowerCase()
  if (lower === '' || /[\r\n]/.test(lower)) return false
  lines ??= `\n${loadCommonPasswords()}\n`
  return lines.includes(`\n${lower}\n`)
}

/** The list as a set (for tests and tools; the policy uses `isCommonPassword`). */
export function commonPasswords(): ReadonlySet<string> {
  return new Set(loadCommonPasswords().split('\n'))
}
