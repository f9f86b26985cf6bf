/**
 * @module cli/context
 * What every command gets: the app folder (null outside an app), output, and a way to boot it.
 */
import type { Application } from '../foundation/application.js'
import { CliError } from './cli-error.js'

export interface CliContext {
  appRoot: string | null
  out: (line: string) => void
  /** The app root, or a one-line error when the command is run outside an app. */
  requireApp(): string
  boot(mode: 'http' | 'console'): Promise<Application>
}

export function notInApp(): never {
  throw new CliError('This command must run inside a Trowel app (a folder with Kernel.ts); create one with "craft new <dir>".')
}

/** Boots the app for a console command, runs `work` with it, and shuts the app down however `work` ends. */
export async function withConsoleApp<T>(ctx: CliContext, work: (app: Application) => Promise<T>): Promise<T> {
  const app = await ctx.boot('console')
  try {
    return await work(app)
  } finally {
    await app.shutdown()
  }
}
