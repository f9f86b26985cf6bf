#!/usr/bin/env node
// Trowel's command line: `node bin/craft.js new <dir>` (or `npx craft new <dir>`).
// Inside an app folder it acts as that app's `node craft`.
// On Node 22.1 and newer, the code Node compiles is kept for the next start (Trowel's
// docs/deploying.md, "Start-up").
import * as nodeModule from 'node:module'

nodeModule.enableCompileCache?.()
const { main } = await import('../dist/cli/index.js')
await main(process.argv)
