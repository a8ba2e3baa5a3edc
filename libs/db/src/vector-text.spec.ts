import { halfRound } from './half-precision';
import { halfBits, halfValue, halfvecText } from './vector-text';

const f16round = (Math as unknown as { f16round?: (x: number) => number }).f16round;

describe('halfvecText', () => {
  it('rounds each element as the store does: float4 first, then to the nearest half, ties to even', () => {
    for (let i = 0; i < 20000; i++) {
      const x = (Math.random() - 0.5) * 2 ** (Math.floor(Math.random() * 44) - 28);
      const expected = halfRound(Math.fround(x));
      expect(halfValue(halfBits(x))).toBe(expected);
      if (f16round) expect(halfValue(halfBits(x))).toBe(f16round(Math.fround(x)));
    }
    expect(halfValue(halfBits(1 + 2 ** -11))).toBe(1); // a tie: even
    expect(halfValue(halfBits(65520))).toBe(Infinity);
    expect(halfValue(halfBits(2 ** -25))).toBe(0); // a tie with the smallest subnormal: even is 0
    expect(halfValue(halfBits(2 ** -25 + 2 ** -30))).toBe(2 ** -24);
    expect(halfvecText([-(2 ** -26), -0, 0])).toBe('[-0,0,0]'); // as the store reads the full text
  });

  it('writes every half value with digits that read back as that same value', () => {
    for (let bits = 0; bits < 1 << 16; bits++) {
      const value = halfValue(bits);
      if (!Number.isFinite(value) || value === 0) continue;
      const text = halfvecText([value]).slice(1, -1);
      expect(text.length).toBeLessThanOrEqual(13); // -0.0000010133
      expect(halfValue(halfBits(Number(text)))).toBe(value);
    }
  });

  it('is less than half as long as JSON for an embedding, and the same text for the same array', () => {
    const vector = Array.from({ length: 1024 }, () => (Math.random() - 0.5) * 0.1);
    const text = halfvecText(vector);
    expect(text.length).toBeLessThan(JSON.stringify(vector).length / 2);
    expect(halfvecText(vector)).toBe(text);
    expect(text.slice(1, -1).split(',').map((t) => halfValue(halfBits(Number(t))))).toEqual(vector.map((x) => halfValue(halfBits(x))));
  });
});
