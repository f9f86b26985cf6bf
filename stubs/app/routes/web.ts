import { Route } from 'trowel'

export const ROUTES = [
  Route.get('/', 'WelcomeController@show').name('welcome'),
]
