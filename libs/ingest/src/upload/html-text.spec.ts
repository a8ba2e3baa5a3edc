import { boundPassedBy, htmlFileToText, htmlToText } from './html-text';
import { UploadTooLargeError } from './upload-errors';

/** `count` rows of the directory page that aborted the API on Node 24 (at 19 MB). */
function tableRows(count: number): string {
  const rows = Array.from({ length: count }, (_, i) => `<tr><td><span class="name">Person ${i}</span></td><td><a href="/p/${i}">profile</a></td><td>city ${i % 97}</td></tr>\n`);
  return `<!doctype html><html><body><table>\n${rows.join('')}</table></body></html>`;
}

describe('boundPassedBy', () => {
  it('admits a page within the depth and the heap', () => {
    expect(boundPassedBy(tableRows(100), { maxDepth: 256, heapMb: 96 })).toBeUndefined();
    expect(boundPassedBy(`${'<div>'.repeat(256)}deep${'</div>'.repeat(256)}`, { maxDepth: 256, heapMb: 256 })).toBeUndefined();
  });

  it('finds a page whose parse would outgrow the heap, from its elements, attributes and text', () => {
    // ~1.8 million elements and runs of text at 19 MB; in 256 MB, html-to-text's DOM of it was the thread's end.
    expect(boundPassedBy(tableRows(50_000), { maxDepth: 256, heapMb: 256 })).toBe('memory');
    expect(boundPassedBy(tableRows(50_000), { maxDepth: 256, heapMb: 2_048 })).toBeUndefined();
    // Attributes: one element with 500,000 of them, where as many characters of text fit.
    const attributes = `<p ${Array.from({ length: 500_000 }, (_, i) => `a${i}`).join(' ')}>x</p>`;
    expect(boundPassedBy(attributes, { maxDepth: 256, heapMb: 64 + 64 })).toBe('memory');
    expect(boundPassedBy(`<p>${'x'.repeat(attributes.length)}</p>`, { maxDepth: 256, heapMb: 64 + 64 })).toBeUndefined();
    // Characters alone: a file past what the heap holds of it once read.
    expect(boundPassedBy(`<p>${'x'.repeat(3 * 1024 * 1024)}</p>`, { maxDepth: 256, heapMb: 64 + 16 })).toBe('memory');
    // Unbounded without a heap (the calling thread's own).
    expect(boundPassedBy(tableRows(50_000), { maxDepth: 256 })).toBeUndefined();
  });

  it('counts a run of text once, as the DOM holds it, however many entities it has', () => {
    // 20,000 nodes (~21 MB counted) fit in 30 MB; the parser's 40,000 pieces of text would not.
    expect(boundPassedBy('<p>a &amp; b</p>'.repeat(10_000), { maxDepth: 256, heapMb: 64 + 30 })).toBeUndefined();
    expect(boundPassedBy('<p>a</p><p>b</p>'.repeat(10_000), { maxDepth: 256, heapMb: 64 + 30 })).toBe('memory');
  });

  it('stops at the depth limit before counting on', () => {
    expect(boundPassedBy(`${'<div>'.repeat(300)}deep${'</div>'.repeat(300)}`, { maxDepth: 256, heapMb: 256 })).toBe('depth');
  });
});

describe('htmlToText', () => {
  it('refuses a page past the heap as too large for memory, naming the file and the heap', () => {
    const error = (() => {
      try {
        return htmlToText(tableRows(50_000), 'directory.html', { maxDepth: 256, heapMb: 256 });
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(UploadTooLargeError);
    expect((error as UploadTooLargeError).details).toEqual({ limit: 'memory', max: 256 });
    expect((error as UploadTooLargeError).message).toMatch(/^Reading the text of "directory\.html" needs more than 256 MB of memory/);
  });

  it('reads a file past 16 Mi characters to its end (html-to-text cut it off there, silently)', () => {
    const html = `<p>The start.</p><!-- ${'x'.repeat(17 * 1024 * 1024)} --><p>The end.</p>`;
    expect(htmlToText(html, 'long.html', { maxDepth: 256 })).toBe('The start.\n\nThe end.');
  });

  it('decodes the bytes of a file in the charset it declares, then reads them', () => {
    const bytes = Buffer.concat([Buffer.from('<html><head><meta charset="windows-1252"></head><body><p>Caf', 'latin1'), Buffer.from([0xe9, 0x20, 0x80]), Buffer.from('</p></body></html>')]);
    expect(htmlFileToText(bytes, 'legacy.html', { maxDepth: 256, heapMb: 256 })).toBe('Café €');
  });
});
