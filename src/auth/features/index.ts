/**
 * @module auth/features
 * THE feature list: every auth feature's module, in the order their routes are listed and they
 * boot. A new feature adds its import, its entry and its name in the export below, and touches
 * nothing else outside its folder.
 */
import type { AuthFeatureModule } from './contract.js'
import { registrationFeature } from '../registration/feature.js'
import { resetPasswordsFeature } from '../reset-passwords/feature.js'
import { rememberMeFeature } from '../remember-me/feature.js'
import { emailVerificationFeature } from '../email-verification/feature.js'
import { accountFeature } from '../account-pages/feature.js'
import { twoFactorFeature } from '../two-factor/feature.js'
import { passkeysFeature } from '../passkeys/feature.js'
import { emailLoginFeature } from '../email-login/feature.js'
import { socialFeature } from '../social/feature.js'
import { organizationsFeature } from '../organizations/feature.js'

let list: readonly AuthFeatureModule[] | undefined

/**
 * THE feature list, in order. A function, not a constant: a feature's own imports may lead back
 * here (through the core), and a list built while one of them is still loading would find it
 * uninitialised; built on first call, every module has loaded.
 */
export function authFeatures(): readonly AuthFeatureModule[] {
  list ??= Object.freeze([
    registrationFeature,
    resetPasswordsFeature,
    rememberMeFeature,
    emailVerificationFeature,
    accountFeature,
    socialFeature,
    twoFactorFeature,
    passkeysFeature,
    emailLoginFeature,
    organizationsFeature,
  ])
  return list
}

/** The modules by name; exporting them also keeps each feature's event types (its `EventMap` augmentation) in the published declarations. */
export { registrationFeature, resetPasswordsFeature, rememberMeFeature, emailVerificationFeature, accountFeature, twoFactorFeature, passkeysFeature, emailLoginFeature, socialFeature, organizationsFeature }

export { defineFeature, type ApiSecondStepContext, type AuthFeatureModule, type FeatureScaffold, type NoticeEvent, type SecurityNoticeRule } from './contract.js'
