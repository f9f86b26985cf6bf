#!/usr/bin/env node
// Trowel's command line: `node bin/craft.js new <dir>` (or `npx craft new <dir>`).
// Inside an app folder it acts as that app's `node craft`.
import { main } from '../dist/cli/index.js'

await main(process.argv)
