// html-to-text 10 ships no type declarations: the one function used here.
declare module 'html-to-text' {
  export interface HtmlToTextOptions {
    wordwrap?: number | false | null
    selectors?: Array<{ selector: string; format?: string; options?: Record<string, unknown> }>
  }
  export function convert(html: string, options?: HtmlToTextOptions): string
}
