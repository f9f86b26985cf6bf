/**
 * @module support/framework-root
 * Where the trowel package is installed: the folder holding package.json, stubs/ and templates/.
 * Files of the package are found from here, never relative to a module: in dist/ a module's code
 * may sit in a shared chunk (scripts/build.mjs), in src/ it sits in its own folder.
 */
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

function packageRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json')
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name === 'trowel') return dir
    if (dirname(dir) === dir) throw new Error(`trowel's package.json was not found above ${from}`)
  }
}

/** The root of the trowel package (the nearest folder above this module whose package.json is trowel's). */
export const FRAMEWORK_ROOT = packageRoot(dirname(fileURLToPath(import.meta.url)))
