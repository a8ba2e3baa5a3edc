import { extname } from 'path';
import { decodedLength, decodeText } from './decode-text';
import { htmlFileToText } from './html-text';
import { pdfToText } from './pdf-text';
import { DEFAULT_UPLOAD_LIMITS, UnreadableFileError, UnsupportedMediaTypeError, UploadLimits, UploadTooLargeError } from './upload-errors';

export interface UploadedFileInput {
  buffer: Buffer;
  originalName: string;
  mimeType?: string;
}

/**
 * The parsers of the formats that cost CPU in proportion to the file (HTML, PDF). The API passes
 * ones that run on worker threads (CpuPool); these run on the calling thread. A parser may take
 * the file's bytes for its own (CpuPool moves them to its thread): the caller reads them no more.
 */
export interface UploadParsers {
  /** The text of an HTML file's bytes (decoded by the parser: a 20 MB file is a 20-40 MB string). */
  htmlToText(buffer: Buffer, fileName: string, limits: UploadLimits): Promise<string>;
  pdfToText(buffer: Buffer, fileName: string, limits: UploadLimits): Promise<string>;
}

const ON_THIS_THREAD: UploadParsers = {
  htmlToText: async (buffer, fileName, limits) => htmlFileToText(buffer, fileName, { maxDepth: limits.maxHtmlDepth }),
  pdfToText,
};

export interface UploadText {
  text: string;
  /** The type the file was read as (not necessarily what the client sent). */
  mimeType: string;
}

type Kind = 'text' | 'markdown' | 'html' | 'pdf';

const MIME_TYPE_OF: Record<Kind, string> = {
  text: 'text/plain',
  markdown: 'text/markdown',
  html: 'text/html',
  pdf: 'application/pdf',
};

const KIND_BY_EXTENSION: Record<string, Kind> = {
  '.txt': 'text',
  '.md': 'markdown',
  '.html': 'html',
  '.htm': 'html',
  '.pdf': 'pdf',
};

const KIND_BY_MIME_TYPE: Record<string, Kind> = {
  'text/plain': 'text',
  'text/markdown': 'markdown',
  'text/x-markdown': 'markdown',
  'text/html': 'html',
  'application/xhtml+xml': 'html',
  'application/pdf': 'pdf',
};

/**
 * The text of an uploaded file. The type is decided by the file name's extension, because
 * browsers and HTTP clients often send a generic or wrong Content-Type (application/octet-stream
 * for .md); the client's MIME type is the fallback for names without a known extension. Text
 * longer than `limits.maxTextChars` is refused whatever the type (a PDF stops being read there).
 */
export async function extractUploadText(
  file: UploadedFileInput,
  parsers: UploadParsers = ON_THIS_THREAD,
  limits: UploadLimits = DEFAULT_UPLOAD_LIMITS,
): Promise<UploadText> {
  const kind = kindOf(file);
  const text = await readAs(kind, file, parsers, limits);
  if (text.length > limits.maxTextChars) throw new UploadTooLargeError(file.originalName, 'characters', limits.maxTextChars);
  if (text.trim().length === 0) {
    // A PDF with pages but no text is almost always a scan: say what would help.
    throw new UnreadableFileError(file.originalName, 'no_text', kind === 'pdf' ? 'A scanned PDF needs OCR first.' : undefined);
  }
  return { text, mimeType: MIME_TYPE_OF[kind] };
}

function kindOf(file: UploadedFileInput): Kind {
  const byExtension = KIND_BY_EXTENSION[extname(file.originalName).toLowerCase()];
  if (byExtension) return byExtension;
  const mimeType = file.mimeType?.split(';')[0].trim().toLowerCase();
  const byMimeType = mimeType ? KIND_BY_MIME_TYPE[mimeType] : undefined;
  if (byMimeType) return byMimeType;
  throw new UnsupportedMediaTypeError(file.originalName, file.mimeType);
}

async function readAs(kind: Kind, file: UploadedFileInput, parsers: UploadParsers, limits: UploadLimits): Promise<string> {
  switch (kind) {
    case 'text':
    case 'markdown':
      // Counted before decoding: a text past the bound is refused without taking its size in heap.
      if (decodedLength(file.buffer, limits.maxTextChars) > limits.maxTextChars) {
        throw new UploadTooLargeError(file.originalName, 'characters', limits.maxTextChars);
      }
      return decodeText(file.buffer, file.originalName);
    case 'html':
      return parsers.htmlToText(file.buffer, file.originalName, limits);
    case 'pdf':
      return parsers.pdfToText(file.buffer, file.originalName, limits);
  }
}
