/**
 * @module view/lazy-markup
 * Markup-safe template values: `markup(html)` is output without escaping; `lazyMarkup(fn)` is
 * the same but computes its text only when a template outputs it, so `{{ csrf_field }}` creates a
 * session's CSRF token only on pages that actually contain a form.
 */
import nunjucks from 'nunjucks'

export type Markup = nunjucks.runtime.SafeString

export function markup(html: string): Markup {
  return new nunjucks.runtime.SafeString(html)
}

export function lazyMarkup(compute: () => string): Markup {
  let text: string | undefined
  const value = (): string => (text ??= compute())
  return Object.create(nunjucks.runtime.SafeString.prototype, {
    val: { get: value, enumerable: true },
    length: { get: () => value().length },
  }) as Markup
}
