// Imports that break the dependency rule of scripts/eslint-rules/layers.js today, each with why it
// is still here. This list only shrinks: the `trowel/layers-allowlist` lint rule warns about an
// entry whose import is gone. Paths are relative to src/. An entry whose target does not exist in
// this tree was registered ahead of a branch's merge and is not reported.
export const ALLOWED = [
  { from: 'auth/auth-forms.ts', to: 'auth/two-factor/errors.ts', why: 'login flow and feature contract (slices login, contract) move this behind the contract' },
  { from: 'auth/auth-forms.ts', to: 'auth/two-factor/amr.ts', why: 'login flow and feature contract (slices login, contract) move this behind the contract' },
  { from: 'auth/auth-provider.ts', to: 'auth/two-factor/install-challenge.ts', why: 'login flow and feature contract (slices login, contract) move this behind the contract' },
  { from: 'auth/email-login/complete.ts', to: 'auth/two-factor/amr.ts', why: 'login flow and feature contract (slices login, contract) move this behind the contract' },
  { from: 'auth/email-login/complete.ts', to: 'auth/two-factor/errors.ts', why: 'login flow and feature contract (slices login, contract) move this behind the contract' },
  { from: 'auth/email-login/complete.ts', to: 'auth/two-factor/pending-login.ts', why: 'login flow and feature contract (slices login, contract) move this behind the contract' },
  { from: 'auth/guards/web/guard.ts', to: 'auth/two-factor/amr.ts', why: 'login flow and feature contract (slices login, contract) move this behind the contract' },
  { from: 'auth/guards/web/guard.ts', to: 'auth/two-factor/pending-secret.ts', why: 'login flow and feature contract (slices login, contract) move this behind the contract' },
  { from: 'auth/index.ts', to: 'auth/email-login/forms.ts', why: 'login flow and feature contract (slices login, contract) move this behind the contract' },
  { from: 'auth/index.ts', to: 'auth/two-factor/two-factor.ts', why: 'login flow and feature contract (slices login, contract) move this behind the contract' },
  { from: 'auth/index.ts', to: 'auth/two-factor/totp.ts', why: 'login flow and feature contract (slices login, contract) move this behind the contract' },
  { from: 'auth/index.ts', to: 'auth/two-factor/recovery-codes.ts', why: 'login flow and feature contract (slices login, contract) move this behind the contract' },
  { from: 'auth/index.ts', to: 'auth/two-factor/challenge-forms.ts', why: 'login flow and feature contract (slices login, contract) move this behind the contract' },
  { from: 'auth/index.ts', to: 'auth/two-factor/pending-login.ts', why: 'login flow and feature contract (slices login, contract) move this behind the contract' },
  { from: 'auth/index.ts', to: 'auth/two-factor/trusted-devices.ts', why: 'login flow and feature contract (slices login, contract) move this behind the contract' },
  { from: 'auth/index.ts', to: 'auth/two-factor/login-challenge.ts', why: 'login flow and feature contract (slices login, contract) move this behind the contract' },
  { from: 'auth/index.ts', to: 'auth/two-factor/errors.ts', why: 'login flow and feature contract (slices login, contract) move this behind the contract' },
  { from: 'auth/index.ts', to: 'auth/passkeys/passkey-forms.ts', why: 'login flow and feature contract (slices login, contract) move this behind the contract' },
  { from: 'auth/index.ts', to: 'auth/passkeys/passkeys.ts', why: 'login flow and feature contract (slices login, contract) move this behind the contract' },
  { from: 'auth/index.ts', to: 'auth/passkeys/install.ts', why: 'login flow and feature contract (slices login, contract) move this behind the contract' },
  { from: 'auth/index.ts', to: 'auth/passkeys/errors.ts', why: 'login flow and feature contract (slices login, contract) move this behind the contract' },
  { from: 'auth/index.ts', to: 'auth/two-factor/two-factor-forms.ts', why: 'login flow and feature contract (slices login, contract) move this behind the contract' },
  { from: 'auth/index.ts', to: 'auth/two-factor/qr-code.ts', why: 'login flow and feature contract (slices login, contract) move this behind the contract' },
  { from: 'auth/middleware/mfa-middleware.ts', to: 'auth/two-factor/amr.ts', why: 'login flow and feature contract (slices login, contract) move this behind the contract' },
  { from: 'auth/middleware/mfa-middleware.ts', to: 'auth/two-factor/errors.ts', why: 'login flow and feature contract (slices login, contract) move this behind the contract' },
  { from: 'auth/middleware/mfa-recent-middleware.ts', to: 'auth/two-factor/amr.ts', why: 'login flow and feature contract (slices login, contract) move this behind the contract' },
  { from: 'auth/passkeys/passkey-forms.ts', to: 'auth/two-factor/pending-login.ts', why: 'login flow and feature contract (slices login, contract) move this behind the contract' },
  { from: 'auth/passkeys/passkey-forms.ts', to: 'auth/two-factor/amr.ts', why: 'login flow and feature contract (slices login, contract) move this behind the contract' },
  // Registered ahead of the merge of social and orgs (their branches as committed at 02:55 UTC).
  { from: 'auth/auth-provider.ts', to: 'auth/social/install.ts', why: 'social: wired in the way email_login is until it moves onto the feature contract' },
  { from: 'auth/auth-routes.ts', to: 'auth/social/routes.ts', why: 'social: wired in the way email_login is until it moves onto the feature contract' },
  { from: 'auth/social/login.ts', to: 'auth/two-factor/amr.ts', why: 'social: its one local login function, swapped to finishWebLogin on merge' },
  { from: 'auth/social/login.ts', to: 'auth/two-factor/errors.ts', why: 'social: its one local login function, swapped to finishWebLogin on merge' },
  { from: 'auth/social/login.ts', to: 'auth/two-factor/pending-login.ts', why: 'social: its one local login function, swapped to finishWebLogin on merge' },
  { from: 'auth/auth-provider.ts', to: 'auth/organizations/install.ts', why: 'orgs: wired in the way email_login is until it moves onto the feature contract' },
  { from: 'auth/auth-routes.ts', to: 'auth/organizations/routes.ts', why: 'orgs: wired in the way email_login is until it moves onto the feature contract' },
  // Registered ahead of the merge of login (its branch as committed at 03:00 UTC): the one login
  // flow runs the second factor through two-factor's pending login until the contract's login step.
  { from: 'auth/login/flow.ts', to: 'auth/two-factor/errors.ts', why: 'login: the flow runs two-factor until the second factor is a contract login step' },
  { from: 'auth/login/flow.ts', to: 'auth/two-factor/amr.ts', why: 'login: the flow runs two-factor until the second factor is a contract login step' },
  { from: 'auth/login/flow.ts', to: 'auth/two-factor/pending-login.ts', why: 'login: the flow runs two-factor until the second factor is a contract login step' },
]
