import { compile, type HtmlToTextOptions } from 'html-to-text';
import { Parser } from 'htmlparser2';
import { UploadTooLargeError } from './upload-errors';

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

const converters = new Map<number, (html: string) => string>();

/**
 * Readable text of an HTML document: no tags, scripts or styles; one line per block. HTML nested
 * deeper than `maxDepth` is refused (UploadTooLargeError) before it is converted.
 */
export function htmlToText(html: string, fileName: string, maxDepth: number): string {
  if (nestsDeeperThan(html, maxDepth)) throw new UploadTooLargeError(fileName, 'depth', maxDepth);
  let convert = converters.get(maxDepth);
  if (!convert) {
    // html-to-text's selector matching recurses once per level: its own depth limit stays on as
    // a guard for the stack (3,000 nested <div>s overflowed it), never reached after the check.
    convert = compile({ ...OPTIONS, limits: { maxDepth: maxDepth + 1 } });
    converters.set(maxDepth, convert);
  }
  return convert(html);
}

/**
 * Whether htmlparser2 would nest some element more than `maxDepth` deep, found by the same parser
 * html-to-text uses (so its implied closes of <p>, <li>… count exactly as there) and stopped at
 * the first element past the limit. The parser keeps its open elements in an array it shifts
 * and unshifts, so each tag costs as much as the depth it is at: 200,000 nested <div>s took 67 s
 * of CPU to parse. Stopped at the limit, the scan costs at most `maxDepth` per tag, and the
 * document html-to-text then parses is known to stay within it.
 */
export function nestsDeeperThan(html: string, maxDepth: number): boolean {
  let depth = 0;
  let tooDeep = false;
  const parser: Parser = new Parser({
    // Void elements (<br>) are opened and closed at once: they count for the moment they are open.
    onopentagname: () => {
      if (++depth > maxDepth && !tooDeep) {
        tooDeep = true;
        parser.pause();
      }
    },
    onclosetag: () => void depth--,
  });
  parser.write(html);
  if (!tooDeep) parser.end();
  return tooDeep;
}
