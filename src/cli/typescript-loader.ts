/**
 * @module cli/typescript-loader
 * `registerTypeScript()`: lets Node load the app's TypeScript files through tsx (Node 20 has no
 * type stripping). A no-op once the app runs from a compiled copy (`craft serve`, see
 * `cli/compile-app`) or with `TROWEL_NO_TSX=1`.
 */
import { compiledAppActive } from '../foundation/app-modules.js'

let tsxRegistered = false

export async function registerTypeScript(): Promise<void> {
  if (tsxRegistered || process.env.TROWEL_NO_TSX === '1' || compiledAppActive()) return
  tsxRegistered = true
  const { register } = await import('tsx/esm/api')
  register()
}
