/**
 * @module view/lazy-markup
 * Markup-safe template values: `markup(html)` is output without escaping; `lazyMarkup(fn)` is
 * the same but computes its text only when a template outputs it, so `{{ csrf_field }}` creates a
 * session's CSRF token only on pages that actually contain a form.
 */
import type nunjucks from 'nunjucks'
import { loadNunjucks } from './load-nunjucks.js'

export type Markup = nunjucks.runtime.SafeString

export function markup(html: string): Markup {
  return new (loadNunjucks().runtime.SafeString)(html)
}

export function lazyMarkup(compute: () => string): Markup {
  let text: string | undefined
  const value = (): string => (text ??= compute())
  return Object.create(loadNunjucks().runtime.SafeString.prototype, {
    val: { get: value, enumerable: true },
    length: { get: () => value().length },
  }) as Markup
}
