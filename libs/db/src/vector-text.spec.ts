import { halfRound } from './half-precision';
import { halfBits, halfValue, halfvecParam, halfvecText } from './vector-text';

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

describe('halfvecParam', () => {
  it("is pgvector's binary halfvec (dimensions, a zero, each element's half bits, big-endian) with the text as its string", () => {
    const vector = [1, -2, 0.1, -0, 0, 2 ** -25 + 2 ** -30, -(2 ** -26), 65520];
    const param = halfvecParam(vector);
    const view = new DataView(param.buffer, param.byteOffset, param.byteLength);
    expect(param.byteLength).toBe(4 + 2 * vector.length);
    expect(view.getInt16(0)).toBe(vector.length);
    expect(view.getInt16(2)).toBe(0);
    const bits = vector.map((_, i) => view.getUint16(4 + 2 * i));
    // Zeros of either sign are +0 as in the text; a tiny negative keeps its sign (-0), as the store rounds it.
    expect(bits).toEqual([0x3c00, 0xc000, halfBits(0.1), 0, 0, 1, 0x8000, 0x7c00]);
    expect(String(param)).toBe(halfvecText(vector));
    expect(`${[param]}`).toBe(halfvecText(vector));
    expect(halfvecParam(vector)).toBe(param);
  });
});
