/**
 * @module auth/social/commands
 * The craft command of social sign-in, loaded only when it runs: `social:add <provider>` (the
 * provider's entry in config/social.ts and its lines in .env). Kept light: `craft` reads this
 * list before it knows which command runs.
 */
export const socialCommands = [{ names: ['social:add'], load: async () => [(await import('./add-command.js')).registerSocialAddCommand] }] as const
