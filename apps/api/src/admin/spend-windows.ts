/** The UTC day and calendar month around `now`: what the daily and monthly caps count. */
export function spendWindows(now: Date): [day: { from: Date; to: Date }, month: { from: Date; to: Date }] {
  const dayStart = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return [
    { from: new Date(dayStart), to: new Date(dayStart + 86_400_000) },
    { from: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)), to: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)) },
  ];
}
