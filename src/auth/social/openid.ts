/**
 * @module auth/social/openid
 * openid-client (and the jose it brings) loaded on first use: an app whose providers are never
 * visited does not pay for them at start-up. The first redirect, callback or native sign-in
 * awaits `openid()`; later calls get the same module.
 */
type OpenidClient = typeof import('openid-client')

let loading: Promise<OpenidClient> | null = null

export function openid(): Promise<OpenidClient> {
  loading ??= import('openid-client')
  return loading
}

