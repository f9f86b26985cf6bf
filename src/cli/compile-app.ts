/**
 * @module cli/compile-app
 * `compileApp(root)`: the app's TypeScript compiled once to JavaScript for `craft serve`, so the
 * server needs no TypeScript loader (tsx adds a loader thread and esbuild to the process, which
 * cost memory and start-up time).
 *
 * The app's `.ts`/`.mts` files (not `node_modules`, `storage`, `tests`, `*.d.ts` or `*.test.ts`)
 * are transformed by esbuild (no bundling: imports stay as written, so
 * `'../app/models/User.js'` finds the compiled `User.js`) into
 * `storage/.trowel/js/<hash of the sources>/`, beside copies of the app's `.js`/`.mjs`/`.cjs`/`.json`
 * files; inline source maps keep stack traces pointing at the `.ts` lines. A module's
 * `import.meta` names its source relative to where the copy is loaded from, so an app copied or
 * moved with its storage/ (a deployment's build step) reuses the copy. Where
 * storage/.trowel/js is reached through a symbolic link, no copy is made (null). The folder is built
 * under a temporary name and renamed into place, so processes starting together never see half
 * of it; the same sources reuse the same folder (and mark it as used). Folders of other sources
 * unused for an hour are removed. Any failure (a syntax error, esbuild missing) returns null, and
 * the caller falls back to tsx, which then reports the error.
 */
import { createHash, randomBytes } from 'node:crypto'
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { dirname, join, relative, resolve } from 'node:path'
import { FRAMEWORK_ROOT } from '../support/framework-root.js'

const requireModule = createRequire(import.meta.url)
/** The built child (an entry point of its own in dist/, see scripts/build.mjs). */
const CHILD = join(FRAMEWORK_ROOT, 'dist', 'cli', 'compile-app-child.js')

const SKIP_DIRS = new Set(['node_modules', 'storage', 'tests', 'test', 'dist', 'coverage'])
const TS = /\.m?ts$/
const COPY = /\.(m?js|cjs|json)$/
const COMPLETE = '.complete'
/** Part of the copy's hash: a change to how files are compiled (compile-app-child) makes new copies. */
const FORMAT = 'import.meta of the source, relative to the copy, on the first line'
const STALE_MS = 60 * 60 * 1000

interface Sources {
  ts: string[]
  copy: string[]
}

function collect(root: string, dir = root, out: Sources = { ts: [], copy: [] }): Sources {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.')) continue
    const full = join(dir, entry.name)
    if (entry.isDirectory()) {
      if (!(dir === root && SKIP_DIRS.has(entry.name))) collect(root, full, out)
    } else if (entry.isFile()) {
      if (entry.name.endsWith('.d.ts') || /\.test\.m?[jt]s$/.test(entry.name)) continue
      if (dir === root && (entry.name === 'package.json' || entry.name === 'tsconfig.json')) continue
      if (TS.test(entry.name)) out.ts.push(full)
      else if (COPY.test(entry.name)) out.copy.push(full)
    }
  }
  return out
}

/**
 * The name of the folder under storage/.trowel/js that holds the copy of the app's current sources
 * (a digest of esbuild's and Node's versions and the files), or null when there is nothing to
 * compile or no esbuild.
 */
function compiledCopyName(root: string, sources: Sources): string | null {
  if (sources.ts.length === 0) return null
  let version: string
  try {
    version = (requireModule('esbuild/package.json') as { version: string }).version
  } catch {
    return null
  }
  const hash = createHash('sha256').update(`${version}\0${process.versions.node}\0${FORMAT}\0`)
  for (const file of [...sources.ts, ...sources.copy].sort()) {
    hash.update(relative(root, file)).update('\0').update(readFileSync(file)).update('\0')
  }
  return hash.digest('hex').slice(0, 16)
}

/** The compiled copy's folder (built now if the sources changed), or null when it cannot be built. */
export function compileApp(root: string): string | null {
  try {
    const sources = collect(root)
    const digest = compiledCopyName(root, sources)
    if (digest === null) return null
    const base = join(root, 'storage', '.trowel', 'js')
    mkdirSync(base, { recursive: true })
    // Node resolves symbolic links: a copy reached through one (storage on another volume, say)
    // would name its sources beside the link's target and find no packages there. Such an app is
    // loaded through tsx instead.
    if (realpathSync(base) !== resolve(realpathSync(root), 'storage', '.trowel', 'js')) return null
    const target = join(base, digest)
    if (isCompiled(target)) {
      touch(target)
      return target
    }

    const tmp = join(base, `${digest}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`)
    mkdirSync(tmp, { recursive: true })
    try {
      // esbuild runs in a child process: its memory never stays in the server.
      const job = {
        root,
        outdir: tmp,
        ts: sources.ts.filter((f) => !f.endsWith('.mts')),
        mts: sources.ts.filter((f) => f.endsWith('.mts')),
        target: `node${process.versions.node.split('.')[0]}`,
      }
      const child = spawnSync(process.execPath, [CHILD], { input: JSON.stringify(job), stdio: ['pipe', 'ignore', 'ignore'], timeout: 60_000 })
      if (child.status !== 0) throw new Error('esbuild failed')
      for (const file of sources.copy) {
        const to = join(tmp, relative(root, file))
        mkdirSync(dirname(to), { recursive: true })
        copyFileSync(file, to)
      }
      writeFileSync(join(tmp, COMPLETE), '')
      try {
        renameSync(tmp, target)
      } catch {
        // Another process finished the same sources first: use its copy.
        rmSync(tmp, { recursive: true, force: true })
        if (!existsSync(join(target, COMPLETE))) return null
      }
    } catch {
      rmSync(tmp, { recursive: true, force: true })
      return null
    }
    removeStale(base, digest)
    return target
  } catch {
    return null
  }
}

/** True when `dir` is a finished compiled copy. */
export function isCompiled(dir: string): boolean {
  return existsSync(join(dir, COMPLETE))
}

/** Marks a copy as in use, so that other processes' clean-up keeps it. */
function touch(dir: string): void {
  try {
    const now = new Date()
    utimesSync(dir, now, now)
  } catch {
    // best effort
  }
}

/** Removes the copies of other sources (and abandoned temporary folders) older than an hour. */
function removeStale(base: string, keep: string): void {
  const now = Date.now()
  for (const name of readdirSync(base)) {
    if (name === keep) continue
    const dir = join(base, name)
    try {
      if (now - statSync(dir).mtimeMs > STALE_MS) rmSync(dir, { recursive: true, force: true })
    } catch {
      // removed meanwhile by another process
    }
  }
}
