/**
 * @module cli/commands/routes-list-command
 * `craft routes:list`: method, path, name, handler and middleware of every route.
 */
import type { Command } from 'commander'
import { withConsoleApp, type CliContext } from '../context.js'

function handlerName(handler: unknown): string {
  if (typeof handler === 'string') return handler
  if (Array.isArray(handler)) return `${(handler[0] as { name?: string }).name ?? '?'}@${handler[1]}`
  if (typeof handler === 'function') return handler.name ? `${handler.name}()` : '(closure)'
  return '?'
}

export function registerRoutesListCommand(program: Command, ctx: CliContext): void {
  program
    .command('routes:list')
    .description('list every route: method, path, name, handler, middleware')
    .action(() =>
      withConsoleApp(ctx, async (app) => {
        const rows = app.router.routes.map((r) => [
          r.methods.join('|'),
          r.path,
          r.name ?? '',
          handlerName(r.definition.handler),
          r.middleware.map((m) => (typeof m === 'string' ? m : m.name)).join(','),
        ])
        const header = ['METHOD', 'PATH', 'NAME', 'HANDLER', 'MIDDLEWARE']
        const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
        for (const row of [header, ...rows]) ctx.out(row.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd())
      }),
    )
}
