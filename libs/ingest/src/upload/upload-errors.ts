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

/** File names are the client's: keep them from bloating the message. */
function shortName(name: string): string {
  const clean = name.replace(/[\u0000-\u001f\u007f]/g, '');
  return clean.length > 120 ? `${clean.slice(0, 117)}...` : clean;
}
