import { PDFParse, VerbosityLevel } from 'pdf-parse';
import { UnreadableFileError } from './upload-errors';

/**
 * Text of every page of a PDF, pages separated by a blank line. pdf-parse 2 wraps Mozilla's
 * pdf.js in a CommonJS build; under jest it needs `--experimental-vm-modules` (as `npm test`
 * sets), because pdf.js loads its worker code with a dynamic import().
 */
export async function pdfToText(buffer: Buffer, fileName: string): Promise<string> {
  const parser = new PDFParse({
    // A copy: pdf.js may take ownership of (transfer) the bytes it is given.
    data: new Uint8Array(buffer),
    // Uploads are untrusted: PDF functions are interpreted, never compiled with eval.
    isEvalSupported: false,
    // pdf.js prints warnings for every oddity of real-world PDFs; errors surface as exceptions.
    verbosity: VerbosityLevel.ERRORS,
  });
  try {
    const result = await parser.getText({ pageJoiner: '' });
    return result.pages
      .map((page) => page.text.replace(/\u0000/g, '').trim())
      .filter((text) => text.length > 0)
      .join('\n\n');
  } catch (error) {
    throw new UnreadableFileError(fileName, isPasswordError(error) ? 'encrypted_pdf' : 'corrupt_pdf');
  } finally {
    await parser.destroy().catch(() => undefined);
  }
}

function isPasswordError(error: unknown): boolean {
  return error instanceof Error && (error.name === 'PasswordException' || /password/i.test(error.message));
}
