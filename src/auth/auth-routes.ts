/**
 * @module auth/auth-routes
 * `Auth.routes()`: the generated auth pages, served by the controllers `craft auth` writes.
 */
import { Route } from '../routing/route.js'
import type { RouteDefinition } from '../routing/route-definition.js'

export function authRoutes(): RouteDefinition[] {
  return [
    Route.get('/login', 'auth/LoginController@show').name('login'),
    Route.post('/login', 'auth/LoginController@store').name('login.store'),
    Route.post('/logout', 'auth/LoginController@logout').name('logout'),
    Route.get('/home', 'auth/HomeController@show').name('home').middleware(['auth']),
    Route.get('/register', 'auth/RegisterController@show').name('register'),
    Route.post('/register', 'auth/RegisterController@store').name('register.store'),
    Route.get('/password_reset', 'auth/PasswordResetController@show').name('password.reset'),
    Route.post('/password_reset', 'auth/PasswordResetController@send').name('password.send'),
    Route.get('/change_password', 'auth/PasswordResetController@change').name('password.change.query'),
    Route.post('/change_password', 'auth/PasswordResetController@update').name('password.update.field'),
    Route.get('/change_password/@token', 'auth/PasswordResetController@change').name('password.change'),
    Route.post('/change_password/@token', 'auth/PasswordResetController@update').name('password.update'),
  ]
}
