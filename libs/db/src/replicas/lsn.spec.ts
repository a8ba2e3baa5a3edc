import { parseLsn } from './lsn';

describe('parseLsn', () => {
  it('orders WAL positions across the high word', () => {
    expect(parseLsn('0/3000000')).toBe(0x3000000n);
    expect(parseLsn('16/B374D848')).toBe((0x16n << 32n) + 0xb374d848n);
    expect(parseLsn('1/0') > parseLsn('0/FFFFFFFF')).toBe(true);
  });

  it('refuses what is not a WAL position', () => {
    for (const text of ['', '0', '0/', 'x/1', '1/2/3', '123456789/0']) expect(() => parseLsn(text)).toThrow('not a WAL position');
  });
});
