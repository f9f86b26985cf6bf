/**
 * @module support/framework-root
 * Where the trowel package is installed: the folder holding package.json, stubs/ and templates/.
 */
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The root of the trowel package (two folders up from this module, in src/ and in dist/ alike). */
export const FRAMEWORK_ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '..', '..')
