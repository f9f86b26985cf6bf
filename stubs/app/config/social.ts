import { env } from 'trowel'

/**
 * Sign in with a provider (docs/social-login.md). A provider whose clientId is unset is not
 * served. Register `<APP_URL>/auth/<name>/callback` as the redirect URI at the provider.
 * Add one with `node craft social:add <name> [--issuer URL]`.
 */
export const SOCIAL = {
  providers: {
    github: { clientId: env('GITHUB_CLIENT_ID'), clientSecret: env('GITHUB_CLIENT_SECRET') },
    google: { clientId: env('GOOGLE_CLIENT_ID'), clientSecret: env('GOOGLE_CLIENT_SECRET') },
    // any OpenID Connect provider by its issuer:
    // acme: { driver: 'oidc', issuer: env('ACME_ISSUER', 'https://id.acme.test'), clientId: env('ACME_CLIENT_ID'), clientSecret: env('ACME_CLIENT_SECRET') },
  },
  /** Minutes a sign-in started at a provider may take. */
  state_minutes: 10,
  /** Minutes a found account has to log in to link the identity. */
  link_minutes: 10,
}
