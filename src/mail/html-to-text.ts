/**
 * @module mail/html-to-text
 * The plain-text part derived from a mail's HTML when no text is given, by the html-to-text
 * library (a real HTML parser): links keep their URL (`Reset password [https://…]`, the URL alone
 * when it is the link's text), table rows become lines with their cells spaced apart
 * (`When    2026-11-26 20:28 UTC`), block elements become line breaks, entities are decoded.
 * An element marked `data-text="skip"` is left out of the text (a URL repeated for HTML readers
 * whose client hides links, which the text part already shows once).
 *
 * The library (a parser and its dependencies, some 40 modules) is loaded at the first mail, not
 * when the server starts: most requests never send one (`lazyModule`, so `htmlToText` stays
 * synchronous).
 */
import { lazyModule } from '../support/lazy-module.js'

const htmlToTextLibrary = lazyModule<typeof import('html-to-text')>('html-to-text')

const OPTIONS = {
  wordwrap: false as const,
  selectors: [
    { selector: 'a', options: { hideLinkHrefIfSameAsText: true, linkBrackets: ['(', ')'] } },
    { selector: 'table', format: 'dataTable', options: { uppercaseHeaderCells: false, colSpacing: 4 } },
    { selector: 'h1', options: { uppercase: false } },
    { selector: 'h2', options: { uppercase: false } },
    { selector: 'h3', options: { uppercase: false } },
    { selector: 'ul', options: { itemPrefix: '- ' } },
    { selector: 'img', format: 'skip' },
    { selector: '[data-text=skip]', format: 'skip' },
  ],
}

const NAMED_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', copy: '©', hellip: '…', mdash: '—', ndash: '–' }

/** Entities decoded (`&amp;` → `&`), for text taken from HTML attributes or fragments. */
export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (match, entity: string) => {
    if (entity[0] === '#') {
      const code = entity[1] === 'x' || entity[1] === 'X' ? parseInt(entity.slice(2), 16) : parseInt(entity.slice(1), 10)
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : match
    }
    return NAMED_ENTITIES[entity.toLowerCase()] ?? match
  })
}

export function htmlToText(html: string): string {
  // A no-break space reads as a space in plain text.
  return htmlToTextLibrary().convert(html, OPTIONS)
    .replace(/\u00a0/g, ' ')
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim()
}
