/**
 * @module auth/features/commands
 * The features' craft commands, in the order `craft --help` lists them after the framework's
 * own: each feature that has commands keeps them in its `commands.ts` (names, and a loader that
 * imports the command's module only when it runs) and adds one line here.
 */
import { twoFactorCommands } from '../two-factor/commands.js'
import { socialCommands } from '../social/commands.js'

export const FEATURE_COMMANDS = [...twoFactorCommands, ...socialCommands] as const
