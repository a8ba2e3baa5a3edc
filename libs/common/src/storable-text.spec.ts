import { hasControlCharacters, hasUnstorableCharacters, toStorableJson, toStorableText } from './storable-text';

describe('storable text', () => {
  it('finds NULs and unpaired surrogates, not paired ones', () => {
    expect(hasUnstorableCharacters('a\u0000b')).toBe(true);
    expect(hasUnstorableCharacters('a\ud800b')).toBe(true);
    expect(hasUnstorableCharacters('a\udc00')).toBe(true);
    expect(hasUnstorableCharacters('emoji 😀 and tab\t')).toBe(false);
  });

  it('finds control characters, NUL, DEL and C1 included, not ordinary text', () => {
    for (const c of ['\u0000', '\u0007', '\n', '\u007f', '\u0085']) expect(hasControlCharacters(`a${c}b`)).toBe(true);
    expect(hasControlCharacters('Zoë & Co. 😀')).toBe(false);
  });

  it('strips NULs and replaces unpaired surrogates in free text', () => {
    expect(toStorableText('Al\u0000ice\ud800 😀')).toBe('Alice\ufffd 😀');
  });

  it('makes every string of a JSON value storable, keys included', () => {
    expect(toStorableJson({ 'k\u0000': ['a\ud800', 1, null, { n: 'x\u0000' }] })).toEqual({ k: ['a\ufffd', 1, null, { n: 'x' }] });
  });
});
