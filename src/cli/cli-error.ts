/**
 * @module cli/cli-error
 * A command failure shown to the user as one line, with a non-zero exit, never a stack.
 */
export class CliError extends Error {
  readonly exitCode: number
  constructor(message: string, exitCode = 1) {
    super(message)
    this.name = 'CliError'
    this.exitCode = exitCode
  }
}
