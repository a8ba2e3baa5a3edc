/**
 * A WAL position ("16/B374D848": the high and low 32 bits in hex) as a number that compares:
 * a replica has replayed a commit when its replay LSN is at or past the commit's.
 */
export function parseLsn(text: string): bigint {
  const match = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/.exec(text);
  if (!match) throw new Error(`not a WAL position: ${JSON.stringify(text)}`);
  return (BigInt(`0x${match[1]}`) << 32n) | BigInt(`0x${match[2]}`);
}
