/**
 * @module cli/app-javascript
 * How `craft` loads an app's own modules: from a compiled JavaScript copy (`cli/compile-app`), so
 * neither a server nor a command pays for the TypeScript loader (tsx starts esbuild and a loader
 * thread: about 0.8 s of CPU per command). Workers of `serve --workers` reuse their primary's
 * copy. `TROWEL_NO_COMPILE=1`, or a copy that cannot be built (a syntax error is then reported by
 * tsx as usual), loads the `.ts` files through tsx instead.
 */
import { join, sep } from 'node:path'
import { compileApp, isCompiled } from './compile-app.js'
import { registerTypeScript } from './typescript-loader.js'
import { useCompiledApp } from '../foundation/app-modules.js'

export async function loadAppAsJavaScript(root: string): Promise<void> {
  const inherited = process.env.TROWEL_APP_JS
  const ours = inherited && inherited.startsWith(join(root, 'storage', '.trowel', 'js') + sep) && isCompiled(inherited)
  const dir = process.env.TROWEL_NO_COMPILE === '1' ? null : ours ? inherited : compileApp(root)
  if (!dir) {
    await registerTypeScript()
    return
  }
  useCompiledApp(root, dir)
  process.setSourceMapsEnabled(true)
  process.env.TROWEL_APP_JS = dir
}
