import { convert, type HtmlToTextOptions } from 'html-to-text';

/*
 * html-to-text (htmlparser2 underneath) already drops <head>, <script> and <style>, decodes
 * entities and puts block elements on lines of their own. The options below make the result read
 * as text for a knowledge graph rather than for an e-mail client: no hard wrapping (the chunker
 * does the cutting), no upper-cased headings, no "[url]" after links, no image file names, tables
 * as aligned rows instead of cells run together, and nothing from elements that hold no prose.
 */
const OPTIONS: HtmlToTextOptions = {
  wordwrap: false,
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
