import { UnreadableFileError } from './upload-errors';

/**
 * Bytes to text for plain-text formats. UTF-8 is the expectation and is checked strictly: a
 * silently replaced byte would end up in the graph as "\ufffd". A UTF-16 file is accepted when a
 * byte-order mark says so (what Windows Notepad writes), and a UTF-8 BOM is dropped. `fallback`
 * is an encoding declared inside the file (an HTML `<meta charset>`), used when there is no BOM.
 */
export function decodeText(buffer: Buffer, fileName: string, fallback?: string): string {
  const bom = byteOrderMark(buffer);
  const encoding = bom?.encoding ?? usableEncoding(fallback) ?? 'utf-8';
  const bytes = buffer.subarray(bom?.length ?? 0);
  // Legacy single-byte encodings map every byte to something: only Unicode ones can be invalid.
  const strict = encoding.startsWith('utf-');
  let text: string;
  try {
    text =
      encoding === 'windows-1252'
        ? decodeWindows1252(bytes)
        : new TextDecoder(encoding, { fatal: strict, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new UnreadableFileError(fileName, 'invalid_utf8');
  }
  // Postgres text cannot hold U+0000, and a NUL in a "text" file means it is not one (UTF-16
  // without a BOM, a renamed binary).
  if (text.includes('\u0000')) throw new UnreadableFileError(fileName, 'binary');
  return text;
}

/**
 * How many characters (UTF-16 code units, String#length) decodeText would make of `buffer`,
 * counted from its bytes without decoding them; past `max` it stops counting and says `max + 1`.
 * A 40 MB text file decoded first took 40-80 MB of the request thread's heap only to be refused
 * for its length; counted first, it is refused at the cost of a loop over its bytes, and one of
 * over three bytes a character allowed is refused without reading it at all. Invalid UTF-8 is
 * counted loosely here and refused by decodeText.
 */
export function decodedLength(buffer: Buffer, max: number): number {
  const bom = byteOrderMark(buffer);
  const length = buffer.length - (bom?.length ?? 0);
  if (bom && bom.encoding !== 'utf-8') return Math.min(Math.floor(length / 2), max + 1);
  // UTF-8 takes at most 3 bytes per code unit (4 bytes carry 2): more bytes than that are too many.
  if (length > 3 * max) return max + 1;
  let units = 0;
  for (let i = bom?.length ?? 0; i < buffer.length; i++) {
    const byte = buffer[i];
    // Every byte but a continuation byte (10xxxxxx) starts a character; a 4-byte one is two units.
    if ((byte & 0xc0) !== 0x80) units += byte >= 0xf0 ? 2 : 1;
    if (units > max) return max + 1;
  }
  return units;
}

function byteOrderMark(buffer: Buffer): { encoding: string; length: number } | null {
  if (buffer.length >= 3 && buffer[0] === 0xef && buffer[1] === 0xbb && buffer[2] === 0xbf) return { encoding: 'utf-8', length: 3 };
  if (buffer.length >= 2 && buffer[0] === 0xff && buffer[1] === 0xfe) return { encoding: 'utf-16le', length: 2 };
  if (buffer.length >= 2 && buffer[0] === 0xfe && buffer[1] === 0xff) return { encoding: 'utf-16be', length: 2 };
  return null;
}

/*
 * Node 20.18.3+ decodes windows-1252 (and the labels that mean it: latin1, iso-8859-1, ascii) as
 * ISO-8859-1, so 0x80-0x9F become C1 controls instead of € „ " " – — ™ (nodejs/node#56542,
 * #60888). windows-1252 is the most common legacy charset of HTML, so it is decoded here: Latin-1
 * plus the WHATWG table for those 32 bytes (five of which map to themselves).
 */
const WINDOWS_1252_HIGH = [
  0x20ac, 0x81, 0x201a, 0x192, 0x201e, 0x2026, 0x2020, 0x2021, 0x2c6, 0x2030, 0x160, 0x2039, 0x152, 0x8d, 0x17d, 0x8f,
  0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x2dc, 0x2122, 0x161, 0x203a, 0x153, 0x9d, 0x17e, 0x178,
];

function decodeWindows1252(bytes: Buffer): string {
  return bytes.toString('latin1').replace(/[\u0080-\u009f]/g, (c) => String.fromCharCode(WINDOWS_1252_HIGH[c.charCodeAt(0) - 0x80]));
}

/** The WHATWG name of `label` if this runtime can decode it, else undefined. */
function usableEncoding(label: string | undefined): string | undefined {
  if (!label) return undefined;
  try {
    return new TextDecoder(label.trim().toLowerCase()).encoding;
  } catch {
    return undefined;
  }
}

/**
 * The charset an HTML file declares in its first 1024 bytes (where the HTML standard says a
 * browser looks), from `<meta charset>` or `<meta http-equiv="Content-Type" content="...">`.
 */
export function declaredHtmlCharset(buffer: Buffer): string | undefined {
  const head = buffer.subarray(0, 1024).toString('latin1');
  const match = /<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9._:-]+)/i.exec(head);
  // A UTF-16 declaration in bytes that were readable as ASCII is wrong; the standard says UTF-8.
  return match && !/^utf-?16/i.test(match[1]) ? match[1] : undefined;
}
