/**
 * @module auth/hashing/common-passwords
 * The list of common passwords the policy refuses: the 49,233-entry "passwords-common"
 * dictionary of `@zxcvbn-ts/language-common` (MIT; drawn from leaked-password corpora, all
 * lower case). It is loaded on first use and kept as a lower-cased `Set`.
 */
import { createRequire } from 'node:module'

interface LanguageCommon {
  dictionary: Record<string, readonly string[]>
}

let cached: ReadonlySet<string> | undefined

/** The common passwords, lower-cased; loaded once on first call (about 40 ms). */
export function commonPasswords(): ReadonlySet<string> {
  if (cached === undefined) {
    const require = createRequire(import.meta.url)
    const { dictionary } = require('@zxcvbn-ts/language-common') as LanguageCommon
    const list = dictionary['passwords-common']
    if (!Array.isArray(list) || list.length < 10_000) {
      throw new Error('@zxcvbn-ts/language-common no longer ships its passwords-common dictionary.')
    }
    cached = new Set(list.map((password) => password.toLowerCase()))
  }
  return cached
}

/** `true` when `password`, compared case-insensitively, is in the common-passwords list. */
export function isCommonPassword(password: string): boolean {
  return commonPasswords().has(password.toLowerCase())
}
