import { compile, type HtmlToTextOptions } from 'html-to-text';
import { Parser } from 'htmlparser2';
import { declaredHtmlCharset, decodeText } from './decode-text';
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
 * What converting HTML holds on the heap at its peak, measured on Node 20 and 24 over tag-dense
 * pages (rows of a table, runs of <p>, <br>, <li>, nested <div>s, cells): 300 to 650 bytes for
 * each element or run of text (a table's cells the most: html-to-text lays a table out whole),
 * ~80 for each attribute, and 2 to 5 for each character of the file (the file itself, its words,
 * the text). Rounded up, so that what these admit stays well inside the heap.
 */
const HEAP_BYTES_PER_NODE = 1024;
const HEAP_BYTES_PER_ATTRIBUTE = 128;
const HEAP_BYTES_PER_CHARACTER = 8;
/** What a CPU thread holds before it reads a file: code and the offline NLP's lexicon (~50 MB measured). */
const THREAD_BASELINE_MB = 64;

/** The bounds one HTML file is read within. */
export interface HtmlReadBounds {
  /** Levels of element nesting (LOCI_UPLOAD_MAX_HTML_DEPTH). */
  maxDepth: number;
  /**
   * The old-generation heap of the thread that reads it, in MB (LOCI_CPU_THREAD_HEAP_MB): a
   * file whose parse would not fit is refused before it is parsed. Unbounded when left out.
   */
  heapMb?: number;
}

/**
 * The readable text of an HTML file's bytes: decoded (in the charset it declares, else UTF-8),
 * then converted by htmlToText. Both happen where this runs (a CPU thread for the API), so the
 * thread that answers requests never holds the file as a string.
 */
export function htmlFileToText(bytes: Buffer, fileName: string, bounds: HtmlReadBounds): string {
  return htmlToText(decodeText(bytes, fileName, declaredHtmlCharset(bytes)), fileName, bounds);
}

/**
 * Readable text of an HTML document: no tags, scripts or styles; one line per block. HTML nested
 * deeper than `bounds.maxDepth`, or with more elements, attributes and text than fit in
 * `bounds.heapMb`, is refused (UploadTooLargeError) before it is converted.
 */
export function htmlToText(html: string, fileName: string, bounds: HtmlReadBounds): string {
  const past = boundPassedBy(html, bounds);
  if (past === 'depth') throw new UploadTooLargeError(fileName, 'depth', bounds.maxDepth);
  if (past === 'memory') throw new UploadTooLargeError(fileName, 'memory', bounds.heapMb!);
  let convert = converters.get(bounds.maxDepth);
  if (!convert) {
    convert = compile({
      ...OPTIONS,
      limits: {
        // html-to-text's selector matching recurses once per level: its own depth limit stays on
        // as a guard for the stack (3,000 nested <div>s overflowed it), never reached after the check.
        maxDepth: bounds.maxDepth + 1,
        // Its default (16 Mi characters) cut longer files off silently, keeping the start as if it
        // were the whole; the bounds above decide what is read, and all of it is.
        maxInputLength: Number.POSITIVE_INFINITY,
      },
    });
    converters.set(bounds.maxDepth, convert);
  }
  return convert(html);
}

/**
 * The first bound `html` goes past, found by the parser html-to-text uses (so its implied closes
 * of <p>, <li>… count exactly as there) streaming over the file without building it, and stopped
 * there; undefined when it stays within both.
 *
 * Depth: the parser keeps its open elements in an array it shifts and unshifts, so each tag
 * costs as much as the depth it is at (200,000 nested <div>s took 67 s of CPU to parse);
 * stopped at the limit, the scan costs at most `maxDepth` per tag.
 *
 * Memory: html-to-text builds the whole document (htmlparser2's DOM) and walks it, ~800 MB for
 * a 19 MB file of table rows. That file was refused by its thread running out of heap, and Node
 * ends a thread at its heap limit only at best (nodejs/node#47224): on Node 24 it aborted the
 * whole process, every tenant's requests with it, on most tries. The pool's young generation now
 * lets Node stop a thread there (cpu-pool.ts), but one allocation past the grace Node gives still
 * aborts; a refusal that every large page meets does not lean on it. What the parse would hold
 * is counted here, and a file whose count passes the thread's heap is refused before anything
 * is built.
 */
export function boundPassedBy(html: string, bounds: HtmlReadBounds): 'depth' | 'memory' | undefined {
  const heapBytes =
    bounds.heapMb === undefined
      ? Number.POSITIVE_INFINITY
      : (bounds.heapMb - THREAD_BASELINE_MB) * 1024 * 1024 - html.length * HEAP_BYTES_PER_CHARACTER;
  let depth = 0;
  let held = 0;
  let inText = false;
  let past: 'depth' | 'memory' | undefined;
  const parser: Parser = new Parser({
    // Void elements (<br>) are opened and closed at once: they count for the moment they are open.
    onopentagname: () => {
      inText = false;
      held += HEAP_BYTES_PER_NODE;
      if (++depth > bounds.maxDepth) stop('depth');
      else if (held > heapBytes) stop('memory');
    },
    onattribute: () => {
      held += HEAP_BYTES_PER_ATTRIBUTE;
      if (held > heapBytes) stop('memory');
    },
    onclosetag: () => {
      inText = false;
      depth--;
    },
    // The parser reports a run of text in pieces (at each entity); the DOM holds one node for it.
    ontext: () => {
      if (inText) return;
      inText = true;
      held += HEAP_BYTES_PER_NODE;
      if (held > heapBytes) stop('memory');
    },
    oncomment: () => countNode(),
    onprocessinginstruction: () => countNode(),
  });
  function countNode() {
    inText = false;
    held += HEAP_BYTES_PER_NODE;
    if (held > heapBytes) stop('memory');
  }
  function stop(bound: 'depth' | 'memory') {
    if (past) return;
    past = bound;
    parser.pause();
  }
  // A file too large for the heap before a tag is read (its characters alone) is past it at once.
  if (heapBytes < 0) return 'memory';
  parser.write(html);
  if (!past) parser.end();
  return past;
}
