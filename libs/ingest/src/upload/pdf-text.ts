import type * as PdfParseModule from 'pdf-parse';
import { UnreadableFileError, UploadLimits, UploadTooLargeError } from './upload-errors';
import { pausePoint } from '../../../common/src/pause-points';

/**
 * Built-ins that pdf-parse replaces in the whole process: its bundle (pdf.js with core-js) puts
 * polyfills over Array.prototype.push (~10x slower; drizzle builds every SQL statement with
 * push) and JSON.parse when it loads, and pdf.js's worker module does again when the first PDF
 * is read. Node's own are kept here, from before pdf-parse is ever loaded, and put back after
 * each of those (core-js replaces them for edge cases of older engines that pdf.js does not rely
 * on). The methods it only adds (Set.prototype.union, Promise.try…) stay.
 */
const OWN_BUILT_INS = ([
  [Array.prototype, 'push'],
  [JSON, 'parse'],
] as Array<[object, PropertyKey]>).map(([target, key]) => ({ target, key, own: Object.getOwnPropertyDescriptor(target, key)! }));

function restoreBuiltIns(): void {
  for (const { target, key, own } of OWN_BUILT_INS) Object.defineProperty(target, key, own);
}

let pdfParseModule: typeof PdfParseModule | undefined;

/**
 * pdf-parse, loaded on the first PDF rather than with the process: a process that never reads
 * a PDF (an API answering questions) never pays its ~20 MB of resident memory or its polyfills.
 */
function loadPdfParse(): typeof PdfParseModule {
  if (!pdfParseModule) {
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      pdfParseModule = require('pdf-parse') as typeof PdfParseModule;
    } finally {
      restoreBuiltIns();
    }
  }
  return pdfParseModule;
}

/**
 * Text of every page of a PDF, pages separated by a blank line. pdf-parse 2 wraps Mozilla's
 * pdf.js in a CommonJS build; under jest it needs `--experimental-vm-modules` (as `npm test`
 * sets), because pdf.js loads its worker code with a dynamic import().
 *
 * Bounded by what the file expands to, not by its bytes: a few kilobytes whose pages all draw one
 * compressed stream of text became 20 million characters. The page count is checked before any
 * page is read, and pages are read one at a time so that reading stops at the first page that
 * takes the text past `limits.maxTextChars` (UploadTooLargeError).
 */
export async function pdfToText(buffer: Buffer, fileName: string, limits: Pick<UploadLimits, 'maxTextChars' | 'maxPdfPages'>): Promise<string> {
  const { PDFParse, VerbosityLevel } = loadPdfParse();
  const parser = new PDFParse({
    // A copy: pdf.js may take ownership of (transfer) the bytes it is given.
    data: new Uint8Array(buffer),
    // Uploads are untrusted: PDF functions are interpreted, never compiled with eval.
    isEvalSupported: false,
    // pdf.js prints warnings for every oddity of real-world PDFs; errors surface as exceptions.
    verbosity: VerbosityLevel.ERRORS,
  });
  try {
    // Page 0 does not exist: this loads the document and reads no page, to learn the count.
    const { total } = await readPages(parser, fileName, [0]);
    if (total > limits.maxPdfPages) throw new UploadTooLargeError(fileName, 'pages', limits.maxPdfPages);
    const texts: string[] = [];
    let characters = 0;
    for (let number = 1; number <= total; number++) {
      // A page can take pdf.js a second: another tenant's question goes first (pause-points.ts).
      pausePoint();
      const [page] = (await readPages(parser, fileName, [number])).pages;
      const text = page.text.replace(/\u0000/g, '').trim();
      characters += text.length;
      if (characters > limits.maxTextChars) throw new UploadTooLargeError(fileName, 'characters', limits.maxTextChars);
      if (text.length > 0) texts.push(text);
    }
    return texts.join('\n\n');
  } finally {
    await parser.destroy().catch(() => undefined);
    restoreBuiltIns();
  }
}

/** The given pages' text; pdf.js's failures become UnreadableFileError. */
async function readPages(parser: PdfParseModule.PDFParse, fileName: string, partial: number[]) {
  try {
    return await parser.getText({ partial, pageJoiner: '' });
  } catch (error) {
    throw new UnreadableFileError(fileName, isPasswordError(error) ? 'encrypted_pdf' : 'corrupt_pdf');
  }
}

function isPasswordError(error: unknown): boolean {
  return error instanceof Error && (error.name === 'PasswordException' || /password/i.test(error.message));
}
