import { DomainError } from '@loci/common';
import { ACCEPTED_UPLOAD_EXTENSIONS, DEFAULT_UPLOAD_LIMITS, extractUploadText, UnreadableFileError, UnsupportedMediaTypeError, UploadTooLargeError } from '.';

/**
 * A small valid PDF with one line of Helvetica text per page, written by hand so that the tests
 * need no binary fixture and no PDF-writing dependency. `trailerExtra` goes into the trailer
 * dictionary (used to add an /Encrypt entry).
 */
function minimalPdf(pages: string[], trailerExtra = ''): Buffer {
  const objects: string[] = [];
  const pageId = (i: number) => 4 + i * 2;
  objects[1] = '<< /Type /Catalog /Pages 2 0 R >>';
  objects[2] = `<< /Type /Pages /Kids [${pages.map((_, i) => `${pageId(i)} 0 R`).join(' ')}] /Count ${pages.length} >>`;
  objects[3] = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>';
  pages.forEach((text, i) => {
    const escaped = text.replace(/[\\()]/g, (c) => `\\${c}`);
    const stream = text ? `BT /F1 12 Tf 72 720 Td (${escaped}) Tj ET` : '';
    objects[pageId(i)] =
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${pageId(i) + 1} 0 R >>`;
    objects[pageId(i) + 1] = `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`;
  });
  let pdf = '%PDF-1.4\n';
  const offsets: number[] = [];
  for (let id = 1; id < objects.length; id++) {
    offsets[id] = pdf.length;
    pdf += `${id} 0 obj\n${objects[id]}\nendobj\n`;
  }
  const xref = pdf.length;
  pdf += `xref\n0 ${objects.length}\n0000000000 65535 f \n`;
  pdf += offsets.slice(1).map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('');
  pdf += `trailer\n<< /Size ${objects.length} /Root 1 0 R ${trailerExtra}>>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(pdf, 'latin1');
}

const upload = (originalName: string, content: string | Buffer, mimeType?: string) =>
  extractUploadText({ buffer: Buffer.isBuffer(content) ? content : Buffer.from(content, 'utf8'), originalName, mimeType });

async function rejection(promise: Promise<unknown>): Promise<DomainError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DomainError);
  return error as DomainError;
}

describe('extractUploadText', () => {
  it('reads plain text and markdown as they are', async () => {
    const text = 'Alice works at Acme.\r\nShe moved to Berlin in 2021 — café, 東京, 👍.\n';
    await expect(upload('notes.txt', text)).resolves.toEqual({ text, mimeType: 'text/plain' });
    const markdown = '# Title\n\n- item *one*\n- item `two`\n';
    await expect(upload('README.MD', markdown, 'application/octet-stream')).resolves.toEqual({
      text: markdown,
      mimeType: 'text/markdown',
    });
  });

  it('drops a UTF-8 byte-order mark and reads UTF-16 marked by one', async () => {
    const withBom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('Hello BOM', 'utf8')]);
    await expect(upload('bom.txt', withBom)).resolves.toEqual({ text: 'Hello BOM', mimeType: 'text/plain' });
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('Grüße aus Köln', 'utf16le')]);
    await expect(upload('notepad.txt', utf16)).resolves.toMatchObject({ text: 'Grüße aus Köln' });
  });

  it('refuses a text longer than the bound before decoding it, naming the limit', async () => {
    const limits = { ...DEFAULT_UPLOAD_LIMITS, maxTextChars: 1_000 };
    const read = (name: string, text: string) => extractUploadText({ buffer: Buffer.from(text, 'utf8'), originalName: name }, undefined, limits);
    await expect(read('fits.md', '東'.repeat(1_000))).resolves.toMatchObject({ text: '東'.repeat(1_000) });
    const over = await rejection(read('long.txt', '東'.repeat(1_001)));
    expect(over).toBeInstanceOf(UploadTooLargeError);
    expect(over.details).toEqual({ limit: 'characters', max: 1_000 });
  });

  it('refuses invalid UTF-8 and binary content, saying why', async () => {
    const invalid = await rejection(upload('latin1.txt', Buffer.from([0x43, 0x61, 0x66, 0xe9, 0x0a])));
    expect(invalid).toBeInstanceOf(UnreadableFileError);
    expect(invalid.message).toMatch(/"latin1\.txt" is not valid UTF-8/);
    expect(invalid.details).toEqual({ reason: 'invalid_utf8' });

    const binary = await rejection(upload('data.md', Buffer.from('a\u0000b\u0000c\u0000', 'latin1')));
    expect(binary.details).toEqual({ reason: 'binary' });
  });

  it('turns HTML into readable text without tags, scripts or styles', async () => {
    const html = `<!doctype html><html><head><title>Page title</title>
      <style>body { color: red }</style><script>var secret = "<p>not text</p>";</script></head>
      <body><h1>Caf&eacute; &amp; Bar</h1><p>Prices &lt;10&nbsp;&euro; &#x1F600;</p>
      <div>First block</div><div>Second <b>block</b></div>
      <ul><li>one</li><li>two</li></ul>
      <p>See <a href="https://example.com/x">the site</a>.<br>New line<img src="x.png" alt="pic"></p>
      <table><tr><th>Name</th><th>City</th></tr><tr><td>Alice</td><td>Berlin</td></tr></table>
      <script>document.write("also not text")</script></body></html>`;
    const { text, mimeType } = await upload('page.htm', html);
    expect(mimeType).toBe('text/html');
    const lines = text.split('\n').map((line) => line.trim()).filter(Boolean);
    expect(lines).toEqual([
      'Café & Bar',
      'Prices <10\u00a0€ 😀',
      'First block',
      'Second block',
      '- one',
      '- two',
      'See the site.',
      'New line',
      expect.stringMatching(/^Name\s+City$/),
      expect.stringMatching(/^Alice\s+Berlin$/),
    ]);
    for (const leaked of ['secret', 'not text', 'color', 'Page title', 'example.com', 'x.png', 'pic', '<p>']) {
      expect(text).not.toContain(leaked);
    }
  });

  it('decodes HTML in the charset it declares', async () => {
    const bytes = Buffer.concat([
      Buffer.from('<html><head><meta charset="windows-1252"></head><body><p>Caf', 'latin1'),
      Buffer.from([0xe9, 0x20, 0x80]),
      Buffer.from('</p></body></html>', 'latin1'),
    ]);
    await expect(upload('legacy.html', bytes)).resolves.toMatchObject({ text: 'Café €' });
  });

  it('reads the text of every page of a PDF', async () => {
    const pdf = minimalPdf(['Alice works at Acme (since 2021).', 'Bob lives in Berlin.']);
    const { text, mimeType } = await upload('report.pdf', pdf, 'application/pdf');
    expect(mimeType).toBe('application/pdf');
    expect(text).toBe('Alice works at Acme (since 2021).\n\nBob lives in Berlin.');
  });

  it("leaves the process's own built-ins in place once a PDF has been read", async () => {
    const push = Array.prototype.push;
    const parse = JSON.parse;
    await upload('report.pdf', minimalPdf(['Alice works at Acme.']), 'application/pdf');
    // pdf-parse's bundle replaces these with slower polyfills when it loads (pdf-text.ts).
    expect(Array.prototype.push).toBe(push);
    expect(JSON.parse).toBe(parse);
  });

  it('says when a PDF is password-protected, damaged, or has no text', async () => {
    const encrypt =
      '/Encrypt << /Filter /Standard /V 1 /R 2 /P -4 ' +
      `/O <${'ab'.repeat(32)}> /U <${'cd'.repeat(32)}> >> /ID [<${'01'.repeat(16)}> <${'01'.repeat(16)}>] `;
    const locked = await rejection(upload('locked.pdf', minimalPdf(['secret'], encrypt)));
    expect(locked.details).toEqual({ reason: 'encrypted_pdf' });
    expect(locked.message).toMatch(/password-protected/);

    const damaged = await rejection(upload('damaged.pdf', Buffer.from('%PDF-1.4\nthis is not a pdf body')));
    expect(damaged.details).toEqual({ reason: 'corrupt_pdf' });
    const renamed = await rejection(upload('photo.pdf', Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46])));
    expect(renamed.details).toEqual({ reason: 'corrupt_pdf' });

    const scan = await rejection(upload('scan.pdf', minimalPdf([''])));
    expect(scan.details).toEqual({ reason: 'no_text' });
    expect(scan.message).toMatch(/has no text.*OCR/);
  });

  it('refuses files with no text', async () => {
    for (const [name, content] of [
      ['empty.txt', ''],
      ['blank.md', ' \n\t\r\n '],
      ['only-script.html', '<html><head><script>x()</script><style>p{}</style></head><body> </body></html>'],
    ]) {
      const error = await rejection(upload(name, content));
      expect(error.details).toEqual({ reason: 'no_text' });
      expect(error.message).toContain(`"${name}" has no text`);
    }
  });

  it('decides by extension first, then by MIME type, else refuses with the accepted list', async () => {
    await expect(upload('notes', 'plain words', 'text/plain; charset=utf-8')).resolves.toMatchObject({ mimeType: 'text/plain' });
    await expect(upload('page', '<p>hi</p>', 'text/html')).resolves.toMatchObject({ text: 'hi', mimeType: 'text/html' });
    // The extension wins over a generic or wrong MIME type.
    await expect(upload('doc.html', '<p>hi</p>', 'text/plain')).resolves.toMatchObject({ text: 'hi' });

    for (const [name, mimeType] of [
      ['report.docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
      ['data.csv', 'text/csv'],
      ['archive', 'application/octet-stream'],
      ['no-type', undefined],
    ] as const) {
      const error = await rejection(upload(name, 'whatever', mimeType));
      expect(error).toBeInstanceOf(UnsupportedMediaTypeError);
      expect(error.code).toBe('unsupported_media_type');
      expect(error.details).toEqual({ accepted: ['.txt', '.md', '.html', '.pdf'] });
      expect(error.message).toContain('.txt, .md, .html, .pdf');
    }
    expect(ACCEPTED_UPLOAD_EXTENSIONS).toEqual(['.txt', '.md', '.html', '.pdf']);
  });
});
