import { DomainError } from '@loci/common';

/** The extensions an upload may have; `.htm` is taken as `.html`. */
export const ACCEPTED_UPLOAD_EXTENSIONS = ['.txt', '.md', '.html', '.pdf'] as const;

/** An upload whose type Loci does not read (HTTP 415). */
export class UnsupportedMediaTypeError extends DomainError {
  readonly code = 'unsupported_media_type';

  constructor(fileName: string, mimeType?: string) {
    const accepted = [...ACCEPTED_UPLOAD_EXTENSIONS];
    super(
      `Cannot read "${shortName(fileName)}"${mimeType ? ` (${mimeType})` : ''}: accepted file types are ${accepted.join(', ')}.`,
      { accepted },
    );
  }
}

export type UnreadableReason = 'invalid_utf8' | 'binary' | 'encrypted_pdf' | 'corrupt_pdf' | 'no_text';

/**
 * A file of an accepted type whose content cannot be turned into text. `details.reason` tells the
 * cases apart for callers that want to word them differently.
 */
export class UnreadableFileError extends DomainError {
  readonly code = 'unreadable_file';

  constructor(fileName: string, reason: UnreadableReason, hint?: string) {
    super(`${REASONS[reason](`"${shortName(fileName)}"`)}${hint ? ` ${hint}` : ''}`, { reason });
  }
}

const REASONS: Record<UnreadableReason, (file: string) => string> = {
  invalid_utf8: (file) => `The file ${file} is not valid UTF-8 text; save it as UTF-8 and upload it again.`,
  binary: (file) => `The file ${file} contains binary data (NUL bytes), not text.`,
  encrypted_pdf: (file) => `The PDF ${file} is password-protected; upload a copy without a password.`,
  corrupt_pdf: (file) => `The file ${file} could not be read as a PDF; it may be damaged.`,
  no_text: (file) => `The file ${file} has no text in it.`,
};

/** The bounds on what an upload expands to (settings `LOCI_UPLOAD_*`, docs in .env.example). */
export interface UploadLimits {
  /** Characters of text one file may yield, whatever its type. */
  maxTextChars: number;
  /** Pages of one PDF. */
  maxPdfPages: number;
  /** Levels of element nesting of one HTML file. */
  maxHtmlDepth: number;
}

/** The defaults of the settings: far above any real document, far below what hurts the service. */
export const DEFAULT_UPLOAD_LIMITS: UploadLimits = { maxTextChars: 5_000_000, maxPdfPages: 2_000, maxHtmlDepth: 256 };

/** Which bound an upload went past: what it expands to, or what reading it cost. */
export type UploadLimit = 'characters' | 'pages' | 'depth' | 'time' | 'memory';

/**
 * A file that weighs little but expands to more than one document may (HTTP 413): a PDF whose
 * pages share one compressed stream, HTML nested thousands deep. `details` names the limit and
 * its value, and the message says it in words.
 */
export class UploadTooLargeError extends DomainError {
  readonly code = 'upload_too_large';
  constructor(fileName: string, limit: UploadLimit, max: number) {
    super(LIMITS[limit](`"${shortName(fileName)}"`, max.toLocaleString('en-US')), { limit, max });
  }
}

const SPLIT = 'split it into smaller files and upload them one by one.';
const LIMITS: Record<UploadLimit, (file: string, max: string) => string> = {
  characters: (file, max) => `The file ${file} holds more than ${max} characters of text, the most one document may have; ${SPLIT}`,
  pages: (file, max) => `The PDF ${file} has more than ${max} pages, the most one document may have; ${SPLIT}`,
  depth: (file, max) => `The HTML file ${file} nests elements more than ${max} levels deep, deeper than any page Loci reads.`,
  time: (file, max) => `Reading the text of ${file} took longer than ${max} ms, the most one file may take; ${SPLIT}`,
  memory: (file, max) => `Reading the text of ${file} needs more than ${max} MB of memory, the most one file may use; ${SPLIT}`,
};

/** An upload's refusal as plain data, for crossing from a worker thread (errors lose their class there). */
export type UploadRefusal = { unreadable: UnreadableReason } | { tooLarge: UploadLimit; max: number };

/** The refusal an upload error carries, or undefined for any other error. */
export function uploadRefusalOf(error: unknown): UploadRefusal | undefined {
  if (error instanceof UnreadableFileError) return { unreadable: (error.details as { reason: UnreadableReason }).reason };
  if (error instanceof UploadTooLargeError) {
    const { limit, max } = error.details as { limit: UploadLimit; max: number };
    return { tooLarge: limit, max };
  }
  return undefined;
}

/** The error a refusal stands for, named after the client's file. */
export function uploadRefusalError(fileName: string, refusal: UploadRefusal): DomainError {
  return 'unreadable' in refusal ? new UnreadableFileError(fileName, refusal.unreadable) : new UploadTooLargeError(fileName, refusal.tooLarge, refusal.max);
}

/** File names are the client's: keep them from bloating the message. */
function shortName(name: string): string {
  const clean = name.replace(/[\u0000-\u001f\u007f]/g, '');
  return clean.length > 120 ? `${clean.slice(0, 117)}...` : clean;
}
