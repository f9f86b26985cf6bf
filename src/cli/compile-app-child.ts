/**
 * @module cli/compile-app-child
 * Run by `cli/compile-app` in a child process, so that esbuild's memory never stays in the server:
 * `node compile-app-child.js` with `{ root, outdir, ts, mts, target }` as JSON on stdin transforms the
 * files (no bundling, inline source maps) and exits 0, or prints esbuild's error and exits 1.
 */
import { readFileSync } from 'node:fs'
import { build, type BuildOptions } from 'esbuild'

interface Job {
  root: string
  outdir: string
  ts: string[]
  mts: string[]
  target: string
}

const job = JSON.parse(readFileSync(0, 'utf8')) as Job
const common: BuildOptions = {
  outdir: job.outdir,
  outbase: job.root,
  absWorkingDir: job.root,
  format: 'esm',
  platform: 'node',
  target: job.target,
  sourcemap: 'inline',
  bundle: false,
  logLevel: 'silent',
}
try {
  if (job.ts.length) await build({ ...common, entryPoints: job.ts })
  if (job.mts.length) await build({ ...common, entryPoints: job.mts, outExtension: { '.js': '.mjs' } })
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n`)
  process.exit(1)
}
