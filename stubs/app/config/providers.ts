/**
 * Service providers, registered after the framework's own (database, sessions, views, mail),
 * in this order: every register() first, then every boot().
 */
import { AuthProvider } from 'trowel/auth'

export const PROVIDERS = [
  AuthProvider,
]
