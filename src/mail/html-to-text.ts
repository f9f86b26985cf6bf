/**
 * @module mail/html-to-text
 * The plain-text part derived from a mail's HTML when no text is given: links keep their URL
 * (`Reset password (https://…)`), block elements become line breaks, entities are decoded.
 */
const NAMED_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', copy: '©', hellip: '…', mdash: '—', ndash: '–' }

export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (match, entity: string) => {
    if (entity[0] === '#') {
      const code = entity[1] === 'x' || entity[1] === 'X' ? parseInt(entity.slice(2), 16) : parseInt(entity.slice(1), 10)
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : match
    }
    return NAMED_ENTITIES[entity.toLowerCase()] ?? match
  })
}

function stripTags(html: string): string {
  return html.replace(/<[^>]*>/g, '')
}

export function htmlToText(html: string): string {
  let text = html.replace(/<(script|style|head|title)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, '')
  text = text.replace(/<!--[\s\S]*?-->/g, '')
  text = text.replace(
    /<a\b[^>]*?\bhref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))[^>]*>([\s\S]*?)<\/a\s*>/gi,
    (_match, dq: string | undefined, sq: string | undefined, bare: string | undefined, inner: string) => {
      const href = decodeEntities((dq ?? sq ?? bare ?? '').trim())
      const label = decodeEntities(stripTags(inner)).replace(/\s+/g, ' ').trim()
      if (!href || href.startsWith('#')) return label
      return label && label !== href ? `${label} (${href})` : href
    },
  )
  text = text.replace(/<br\s*\/?>/gi, '\n')
  text = text.replace(/<li\b[^>]*>/gi, '\n- ').replace(/<\/li\s*>/gi, '')
  text = text.replace(/<\/?(?:p|div|h[1-6]|ul|ol|tr|table|blockquote|section|article|header|footer|hr|pre)\b[^>]*>/gi, '\n\n')
  text = decodeEntities(stripTags(text))
  return text
    .split('\n')
    .map((line) => line.replace(/[ \t\f\v]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim()
}
