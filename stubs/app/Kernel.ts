import { HttpKernel, SessionMiddleware, VerifyCsrfTokenMiddleware } from 'trowel'
import { AuthenticationMiddleware, GuestMiddleware, InitializeAuthMiddleware, MfaMiddleware, MfaRecentMiddleware, PasswordConfirmMiddleware, VerifiedMiddleware } from 'trowel/auth'

export class Kernel extends HttpKernel {
  /** Runs on every request. */
  httpMiddleware = []

  /** Named stacks. Routes in routes/web.ts are in the `web` stack automatically. */
  routeMiddleware = {
    web: [SessionMiddleware, VerifyCsrfTokenMiddleware, InitializeAuthMiddleware],
    auth: [AuthenticationMiddleware],
    guest: [GuestMiddleware],
    verified: [VerifiedMiddleware],
    'password.confirm': [PasswordConfirmMiddleware],
    mfa: [MfaMiddleware],
    'mfa.recent': [MfaRecentMiddleware],
  }

  registerRoutes() {
    this.application.bind('routes.location', 'routes/web')
  }
}
