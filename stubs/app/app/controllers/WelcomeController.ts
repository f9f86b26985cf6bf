import type { HttpContext } from 'trowel'

export class WelcomeController {
  show({ view }: HttpContext) {
    return view.render('welcome')
  }
}
