/**
 * @module auth/email-verification/feature
 * E-mail verification (`email_verification` in `GUARDS.features`): the "verify your address" page,
 * its resend button, and the mailed link (`/email/verify/@token`: GET and HEAD show a page and
 * change nothing, its button POSTs), which the account pages' e-mail change uses too.
 */
import { Route } from '../../routing/route.js'
import { emailLinkRoutes } from '../features/shared-routes.js'
import { defineFeature } from '../features/contract.js'

export const emailVerificationFeature = defineFeature({
  name: 'email_verification',
  generated: true,
  routes: () => [
    Route.get('/email/verify', 'auth/EmailVerificationController@notice').name('verification.notice').middleware(['auth']),
    Route.post('/email/verification-notification', 'auth/EmailVerificationController@resend').name('verification.send').middleware(['auth']),
    ...emailLinkRoutes(),
  ],
  scaffold: { controllers: ['EmailVerificationController.ts'], mailables: ['VerifyEmail.ts'], templates: ['verify_email.html', 'email_link.html'], mailTemplates: ['verify_email.html'] },
})
