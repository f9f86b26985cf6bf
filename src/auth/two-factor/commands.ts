/**
 * @module auth/two-factor/commands
 * The craft commands of two factors, each loaded only when it runs: `two-factor:disable <email>`
 * (an account whose owner lost every factor) and `two-factor:reencrypt` (after an APP_KEY
 * rotation). Kept light: `craft` reads this list before it knows which command runs.
 */
export const twoFactorCommands = [
  {
    names: ['two-factor:disable', 'two-factor:reencrypt'],
    load: async () => {
      const m = await import('./two-factor-command.js')
      return [m.registerTwoFactorCommand, m.registerTwoFactorReencryptCommand]
    },
  },
] as const
