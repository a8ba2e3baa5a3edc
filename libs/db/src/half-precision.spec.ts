import { roundToHalf } from './half-precision';

describe('roundToHalf', () => {
  it('rounds to the nearest half-precision value, ties to even', () => {
    expect(roundToHalf(1)).toBe(1);
    expect(roundToHalf(1 + 2 ** -11)).toBe(1); // a tie between 1 and 1 + 2^-10: even is 1
    expect(roundToHalf(1 + 3 * 2 ** -11)).toBe(1 + 2 * 2 ** -10); // a tie: even is 1 + 2^-9
    expect(roundToHalf(0.1)).toBe(0.0999755859375);
    expect(roundToHalf(-0.333333)).toBe(-0.333251953125);
    expect(roundToHalf(65504)).toBe(65504);
    expect(roundToHalf(70000)).toBe(Infinity);
    expect(roundToHalf(2 ** -24)).toBe(2 ** -24); // the smallest subnormal
    expect(roundToHalf(2 ** -26)).toBe(0);
    expect(roundToHalf(0)).toBe(0);
  });

  it('agrees with Math.f16round where the runtime has it', () => {
    const f16round = (Math as unknown as { f16round?: (x: number) => number }).f16round;
    if (!f16round) return;
    for (let i = 0; i < 10000; i++) {
      const x = (Math.random() - 0.5) * 2 ** (Math.floor(Math.random() * 40) - 25);
      expect(roundToHalf(x)).toBe(f16round(x));
    }
  });
});
