/**
 * How old a source is, for the `freshness` of /v1/query sources: counted from the document's
 * own date when it has one (what the text speaks of), else from when it was loaded.
 * Bands: `fresh` up to 30 days, `aging` up to 180, `stale` beyond.
 */
export const FRESHNESS_BANDS = [
  { upToDays: 30, label: 'fresh' },
  { upToDays: 180, label: 'aging' },
] as const;

export function daysAgo(documentDate: Date | null, loadedAt: Date, now: Date = new Date()): number {
  const since = documentDate ?? loadedAt;
  return Math.max(0, Math.floor((now.getTime() - since.getTime()) / 86_400_000));
}

export function freshnessOf(days: number): string {
  return FRESHNESS_BANDS.find((band) => days <= band.upToDays)?.label ?? 'stale';
}
