// Imports that break the dependency rule of scripts/eslint-rules/layers.js today, each with why it
// is still here. This list only shrinks: the `trowel/layers-allowlist` lint rule warns about an
// entry whose import is gone. Paths are relative to src/. An entry whose target does not exist in
// this tree was registered ahead of a branch's merge and is not reported.
export const ALLOWED = [
  { from: 'auth/auth-provider.ts', to: 'auth/two-factor/install-challenge.ts', why: 'login flow and feature contract (slices login, contract) move this behind the contract' },
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
  { from: 'auth/middleware/mfa-middleware.ts', to: 'auth/two-factor/errors.ts', why: 'login flow and feature contract (slices login, contract) move this behind the contract' },
  { from: 'auth/passkeys/passkey-forms.ts', to: 'auth/two-factor/pending-login.ts', why: 'login flow and feature contract (slices login, contract) move this behind the contract' },
  // Registered ahead of the merge of social and orgs (their branches as committed at 02:55 UTC).
]
