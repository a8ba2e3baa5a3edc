import { convert, type HtmlToTextOptions } from 'html-to-text';

/** Levels of element nesting read; deeper content is dropped. */
export const MAX_HTML_DEPTH = 256;

/*
 * html-to-text (htmlparser2 underneath) already drops <head>, <script> and <style>, decodes
 * entities and puts block elements on lines of their own. The options below make the result read
 * as text for a knowledge graph rather than for an e-mail client: no hard wrapping (the chunker
 * does the cutting), no upper-cased headings, no "[url]" after links, no image file names, tables
 * as aligned rows instead of cells run together, and nothing from elements that hold no prose.
 */
const OPTIONS: HtmlToTextOptions = {
  wordwrap: false,
  // Its selector matching recurses once per level of nesting: 3,000 nested <div>s overflowed the
  // stack (a 500 for a bad upload). Text nested deeper than this, which no real page has, is
  // left out (an ellipsis marks where).
  limits: { maxDepth: MAX_HTML_DEPTH },
  selectors: [
    ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({ selector, options: { uppercase: false } })),
    { selector: 'a', options: { ignoreHref: true } },
    { selector: 'ul', options: { itemPrefix: '- ' } },
    { selector: 'table', format: 'dataTable', options: { uppercaseHeaderCells: false } },
    ...['img', 'hr', 'template', 'svg', 'canvas', 'iframe', 'object', 'audio', 'video', 'button', 'select'].map(
      (selector) => ({ selector, format: 'skip' }),
    ),
  ],
};

/** Readable text of an HTML document: no tags, scripts or styles; one line per block. */
export function htmlToText(html: string): string {
  return convert(html, OPTIONS);
}
