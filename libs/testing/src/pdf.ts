import { deflateSync } from 'node:zlib';

/**
 * A valid PDF with the given pages, each a list of lines of Helvetica text, written by hand so
 * that tests need no binary fixture and no PDF-writing dependency.
 */
export function textPdf(pages: string[][]): Buffer {
  const objects: string[] = [];
  const pageId = (i: number) => 4 + i * 2;
  objects[1] = '<< /Type /Catalog /Pages 2 0 R >>';
  objects[2] = `<< /Type /Pages /Kids [${pages.map((_, i) => `${pageId(i)} 0 R`).join(' ')}] /Count ${pages.length} >>`;
  objects[3] = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>';
  pages.forEach((lines, i) => {
    const shown = lines.map((line) => `(${line.replace(/[\\()]/g, (c) => `\\${c}`)}) Tj T*`).join(' ');
    const stream = lines.length ? `BT /F1 10 Tf 12 TL 50 750 Td ${shown} ET` : '';
    objects[pageId(i)] =
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${pageId(i) + 1} 0 R >>`;
    objects[pageId(i) + 1] = `<< /Length ${Buffer.byteLength(stream, 'latin1')} >>\nstream\n${stream}\nendstream`;
  });
  let pdf = '%PDF-1.4\n';
  const offsets: number[] = [];
  for (let id = 1; id < objects.length; id++) {
    offsets[id] = Buffer.byteLength(pdf, 'latin1');
    pdf += `${id} 0 obj\n${objects[id]}\nendobj\n`;
  }
  const xref = Buffer.byteLength(pdf, 'latin1');
  pdf += `xref\n0 ${objects.length}\n0000000000 65535 f \n`;
  pdf += offsets.slice(1).map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('');
  pdf += `trailer\n<< /Size ${objects.length} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(pdf, 'latin1');
}

/**
 * A PDF that weighs a few kilobytes and expands to millions of characters: its `pages` pages all
 * draw one FlateDecode content stream, which shows `linesPerPage` lines of text (issue 33: 20
 * pages of one 4.9 KB file became 20 million characters and 42 s of CPU). `slowOnly` shows the
 * same characters as one run off the edge of the page instead: pdf.js still interprets all of it
 * (seconds of CPU) but keeps almost none of it as text.
 */
export function sharedStreamPdf(pages: number, linesPerPage: number, options: { slowOnly?: boolean } = {}): Buffer {
  const line = 'Alice met Bob in Berlin.';
  const content = options.slowOnly
    ? `BT /F1 10 Tf 50 750 Td (${`${line} `.repeat(linesPerPage)}) Tj ET`
    : `BT /F1 10 Tf 50 750 Td ${`(${line}) Tj 0 -0.01 Td `.repeat(linesPerPage)}ET`;
  const stream = deflateSync(Buffer.from(content, 'latin1'), { level: 9 });
  const pageId = (i: number) => 5 + i;
  const objects: Buffer[] = [];
  objects[1] = Buffer.from('<< /Type /Catalog /Pages 2 0 R >>');
  objects[2] = Buffer.from(`<< /Type /Pages /Kids [${Array.from({ length: pages }, (_, i) => `${pageId(i)} 0 R`).join(' ')}] /Count ${pages} >>`);
  objects[3] = Buffer.from('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>');
  objects[4] = Buffer.concat([Buffer.from(`<< /Length ${stream.length} /Filter /FlateDecode >>\nstream\n`), stream, Buffer.from('\nendstream')]);
  for (let i = 0; i < pages; i++) {
    objects[pageId(i)] = Buffer.from(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents 4 0 R >>`);
  }
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n')];
  let length = parts[0].length;
  const offsets: number[] = [];
  for (let id = 1; id < objects.length; id++) {
    offsets[id] = length;
    const part = Buffer.concat([Buffer.from(`${id} 0 obj\n`), objects[id], Buffer.from('\nendobj\n')]);
    parts.push(part);
    length += part.length;
  }
  let tail = `xref\n0 ${objects.length}\n0000000000 65535 f \n`;
  tail += offsets.slice(1).map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('');
  tail += `trailer\n<< /Size ${objects.length} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`;
  parts.push(Buffer.from(tail));
  return Buffer.concat(parts);
}
