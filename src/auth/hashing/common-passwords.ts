/**
 * @module auth/hashing/common-passwords
 * The list of common passwords the policy refuses: the 49,233-entry "passwords-common"
 * dictionary of `@zxcvbn-ts/language-common` (MIT; drawn from leaked-password corpora, all
 * lower case).
 *
 * The package ships it compressed, beside its other dictionaries; decompressing it and keeping
 * it as a `Set` took about 45 ms of CPU and 2 MB of heap in every process that checked a new
 * password. So the package's build writes it out once (scripts/build.mjs):
 * `dist/assets/common-passwords.txt`, one lower-cased password a line, headed by the version it
 * was taken from. A process reads that file on first use (about 1 ms) and keeps it as one string
 * of 0.4 MB, in which a password is looked up as a whole line (about 0.2 ms: only registration
 * and password changes ask). Running from the sources, or beside another version of the
 * package, it takes the list from the package instead.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { FRAMEWORK_ROOT } from '../../support/framework-root.js'

interface LanguageCommon {
  dictionary: Record<string, readonly string[]>
}

/** Where the package's build writes the list. */
export const PREBUILT_COMMON_PASSWORDS = join(FRAMEWORK_ROOT, 'dist', 'assets', 'common-passwords.txt')

const PACKAGE = '@zxcvbn-ts/language-common'

/** The first line of the prebuilt file: the package and version the list was taken from. */
export function commonPasswordsHeader(): string {
  const { version } = createRequire(import.meta.url)(`${PACKAGE}/package.json`) as { version: string }
  return `# ${PACKAGE}@${version} passwords-common`
}

/** The list, taken from the package now: lower-cased, each once, one a line. */
export function extractCommonPasswords(): string {
  const { dictionary } = createRequire(import.meta.url)(PACKAGE) as LanguageCommon
  const list = dictionary['passwords-common']
  if (!Array.isArray(list) || list.length < 10_000) {
    throw new Error(`${PACKAGE} no longer ships its passwords-common dictionary.`)
  }
  // A line break would let a look-up match across two entries; no entry has one.
  const lines = new Set(list.map((password) => password.toLowerCase()).filter((password) => password !== '' && !/[\r\n]/.test(password)))
  return [...lines].join('\n')
}

/** The prebuilt list at `path` when it was taken from the installed package, else the package's. */
export function loadCommonPasswords(path = PREBUILT_COMMON_PASSWORDS): string {
  let text: string | undefined
  try {
    text = readFileSync(path, 'utf8')
  } catch {
    // not built with the package (running from the sources)
  }
  const newline = text?.indexOf('\n') ?? -1
  if (text !== undefined && newline > 0 && text.slice(0, newline) === commonPasswordsHeader()) return text.slice(newline + 1)
  return extractCommonPasswords()
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
