import { decodedLength, decodeText } from './decode-text';

describe('decodedLength', () => {
  const texts = ['', 'Alice works at Acme.', 'Grüße aus Köln, café', '東京で働く', 'emoji 👍🏽 and 𝔘𝔫𝔦𝔠𝔬𝔡𝔢', 'mixed: é 東 👍 a'];

  it('is the length decodeText gives, counted from the bytes (UTF-8 with or without a BOM, UTF-16 marked by one)', () => {
    for (const text of texts) {
      const utf8 = Buffer.from(text, 'utf8');
      expect(decodedLength(utf8, 1_000)).toBe(decodeText(utf8, 'a.txt').length);
      const withBom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), utf8]);
      expect(decodedLength(withBom, 1_000)).toBe(decodeText(withBom, 'a.txt').length);
      const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
      expect(decodedLength(utf16, 1_000)).toBe(decodeText(utf16, 'a.txt').length);
    }
  });

  it('stops counting past the bound: max + 1 for anything longer, at or under it the exact length', () => {
    const text = Buffer.from('é'.repeat(100), 'utf8');
    expect(decodedLength(text, 100)).toBe(100);
    expect(decodedLength(text, 99)).toBe(100);
    expect(decodedLength(text, 10)).toBe(11);
  });

  it('refuses without reading bytes that could not hold so few characters (over three bytes each)', () => {
    // Reading a byte past a byte-order mark's three would throw: only the length is looked at.
    const untouchable = new Proxy(Buffer.alloc(31), {
      get: (target, key) => {
        if (key === 'length') return target.length;
        if (typeof key === 'string' && /^\d+$/.test(key) && Number(key) >= 3) throw new Error(`byte ${key} read`);
        return Reflect.get(target, key) as unknown;
      },
    });
    expect(decodedLength(untouchable, 10)).toBe(11);
  });
});
