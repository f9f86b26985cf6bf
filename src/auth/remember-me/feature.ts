/**
 * @module auth/remember-me/feature
 * "Remember me" (`remember_me` in `GUARDS.features`): off, the login form's box is ignored and a
 * `trowel_remember` cookie is never read (the web guard's remember-token repository is built only
 * with it on).
 */
import { defineFeature } from '../features/contract.js'

export const rememberMeFeature = defineFeature({
  name: 'remember_me',
  generated: true,
})
