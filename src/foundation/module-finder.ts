/**
 * @module foundation/module-finder
 * The one rule for finding an app module by its name without extension (`Kernel`, `routes/web`,
 * `app/controllers/PostController`, `config/database`): TypeScript first, then JavaScript.
 */
import { existsSync } from 'node:fs'

/** The extensions an app module may have, in the order they are tried. */
export const SOURCE_EXTENSIONS = ['.ts', '.mts', '.js', '.mjs'] as const

/** The first existing file `base + ext` (in `SOURCE_EXTENSIONS` order), or undefined. */
export function findModule(base: string): string | undefined {
  for (const ext of SOURCE_EXTENSIONS) {
    const file = base + ext
    if (existsSync(file)) return file
  }
  return undefined
}
