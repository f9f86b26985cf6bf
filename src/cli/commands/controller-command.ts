/**
 * @module cli/commands/controller-command
 * `craft controller <Name> [-a]`: `app/controllers/<Name>Controller.ts` (the suffix is added when
 * the name lacks it, as Masonite does: `Posts` → `PostsController`); with `-a` a resource
 * controller whose index, show, store, update and destroy return JSON.
 */
import type { Command } from 'commander'
import { renderStub, writeFiles } from '../generator.js'
import { CliError } from '../cli-error.js'
import type { CliContext } from '../context.js'

export function registerControllerCommand(program: Command, ctx: CliContext): void {
  program
    .command('controller')
    .argument('<name>', 'class name, e.g. Posts or PostsController (the Controller suffix is added when missing); subfolders with /, e.g. admin/Users')
    .description('create app/controllers/<Name>Controller.ts (-a: a resource controller for Route.api)')
    .option('-a, --api', 'a resource controller with index, show, store, update, destroy')
    .option('--force', 'overwrite an existing file')
    .action((name: string, opts: { api?: boolean; force?: boolean }) => {
      const root = ctx.requireApp()
      const given = name.replace(/\\/g, '/').replace(/\.(ts|js)$/, '')
      if (!/^([A-Za-z_][\w]*\/)*[A-Za-z_]\w*$/.test(given)) throw new CliError(`"${name}" is not a valid controller name (letters, digits, _; subfolders with /).`)
      const clean = given.endsWith('Controller') ? given : `${given}Controller`
      const className = clean.split('/').pop()!
      const resource = className.replace(/Controller$/, '').toLowerCase() || 'resource'
      const contents = renderStub(opts.api ? 'controller/resource.ts.stub' : 'controller/plain.ts.stub', { className, resource })
      writeFiles([{ path: `${root}/app/controllers/${clean}.ts`, contents }], { force: opts.force, root, out: ctx.out })
    })
}
