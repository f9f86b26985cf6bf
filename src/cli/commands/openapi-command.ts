/**
 * @module cli/commands/openapi-command
 * `craft openapi`: writes the OpenAPI 3.1 document of the app's API (the routes of
 * `Api.routes()` and every route of `routes/api.ts`, the Bearer security schemes, the error
 * bodies) to `openapi.json`, or to `--output <file>`. Overwrites: the file is generated. `--web`
 * adds the web pages and forms that answer JSON (api/openapi/web-operations).
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, relative, resolve } from 'node:path'
import type { Command } from 'commander'
import type { CliContext } from '../context.js'
import { appOpenApiDocument } from '../../api/openapi/index.js'

export function registerOpenApiCommand(program: Command, ctx: CliContext): void {
  program
    .command('openapi')
    .summary('write openapi.json: the OpenAPI 3.1 document of the API')
    .description(
      'Write openapi.json: the OpenAPI 3.1 document of the API, built from the app\'s routes: the routes Api.routes() adds (POST /api/auth, /api/reauth, /api/logout, /api/revoke, ' +
        'GET /.well-known/jwks.json, GET /api/openapi.json) and every route of routes/api.ts (a Route.api resource as its five routes, update answering PUT and PATCH), ' +
        'the Bearer security schemes (JWT and personal access token; an ability:<name> route lists its abilities), and the error bodies ({message, code}; 422 adds errors). ' +
        'Web pages are left out unless --web: then every web page and form that answers JSON (Auth.routes() but the browser navigations, the tokens page, routes marked .form(), and GET /csrf-token) is added, ' +
        'with the session cookie, X-CSRF-TOKEN, its request fields and its answers ({"data": ...}, 201 for a create, and the errors its middleware give). The file is overwritten. GET /api/openapi.json serves the same document when DRIVERS.jwt.openapi is true in config/api.ts.',
    )
    .option('-o, --output <file>', 'where to write it, relative to the app', 'openapi.json')
    .option('--web', 'also the web pages and forms, as a same-site single-page app calls them with JSON')
    .action(async (opts: { output: string; web?: boolean }) => {
      const root = ctx.requireApp()
      const app = await ctx.boot('console')
      try {
        const document = appOpenApiDocument(app, { web: opts.web === true })
        const target = resolve(root, opts.output)
        mkdirSync(dirname(target), { recursive: true })
        writeFileSync(target, JSON.stringify(document, null, 2) + '\n')
        const operations = Object.values(document.paths).reduce((n, item) => n + Object.keys(item).filter((k) => k !== 'parameters').length, 0)
        ctx.out(`Created ${relative(root, target) || target} (OpenAPI ${document.openapi}, ${operations} operations)`)
        if (operations === 0 && !opts.web) ctx.out('No API routes found: register ApiProvider and add ...Api.routes() to routes/web.ts (docs/jwt-api.md).')
      } finally {
        await app.shutdown()
      }
    })
}
