import { SimpleGrid, Text } from '@mantine/core';
import { Bar, BarChart, CartesianGrid, Legend, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { UsageDay } from '../api';

const DAY_MS = 86_400_000;
// Mantine's palette through its CSS variables, so the charts follow the theme.
const PALETTE = ['blue', 'teal', 'grape', 'orange', 'cyan', 'lime', 'pink', 'indigo'].map((c) => `var(--mantine-color-${c}-6)`);
const OTHERS = 'others';
/** Tenants beyond the busiest few are one "others" band: a stack of dozens of colours reads as none. */
const MAX_SERIES = 6;

const costOf = (d: UsageDay) => d.cost_usd.platform + d.cost_usd.own_key;

/** Every UTC day of [from, to), so a quiet day is a zero bar rather than a missing one. */
export function daysOf(from: string, to: string): string[] {
  const days: string[] = [];
  for (let t = Date.parse(from); t < Date.parse(to); t += DAY_MS) days.push(new Date(t).toISOString().slice(0, 10));
  return days;
}

interface Series {
  key: string;
  label: string;
}

/**
 * Usage as rows a chart reads: one row a day, one column a series (a tenant, or "others"), for
 * one measure. Series are the busiest tenants by the measure's total over the period.
 */
export function chartRows(items: UsageDay[], days: string[], measure: (d: UsageDay) => number, seriesOf: (tenantId: string) => string) {
  const totals = new Map<string, number>();
  for (const d of items) totals.set(seriesOf(d.tenant_id), (totals.get(seriesOf(d.tenant_id)) ?? 0) + measure(d));
  const ranked = [...totals.entries()].sort((a, b) => b[1] - a[1]).map(([key]) => key);
  const kept = new Set(ranked.length > MAX_SERIES ? ranked.slice(0, MAX_SERIES - 1) : ranked);
  const series: Series[] = [...kept].map((key) => ({ key, label: key }));
  if (ranked.length > kept.size) series.push({ key: OTHERS, label: `${ranked.length - kept.size} others` });
  const rows = new Map<string, Record<string, number | string>>(days.map((day) => [day, { day: day.slice(5) }]));
  for (const d of items) {
    const row = rows.get(d.day);
    if (!row) continue;
    const key = kept.has(seriesOf(d.tenant_id)) ? seriesOf(d.tenant_id) : OTHERS;
    row[key] = ((row[key] as number | undefined) ?? 0) + measure(d);
  }
  return { rows: [...rows.values()], series };
}

function DayChart({
  title,
  rows,
  series,
  limit,
  limitLabel,
  format,
  testId,
  legend,
}: {
  title: string;
  rows: Record<string, number | string>[];
  series: Series[];
  limit?: number | null;
  limitLabel?: string;
  format: (v: number) => string;
  testId: string;
  legend: boolean;
}) {
  return (
    <figure style={{ margin: 0, minWidth: 0 }} data-testid={testId}>
      <Text component="figcaption" size="sm" fw={500} mb={4}>
        {title}
      </Text>
      <ResponsiveContainer width="100%" height={220}>
        <BarChart data={rows} margin={{ top: 8, right: 8, bottom: 0, left: 0 }} accessibilityLayer>
          <CartesianGrid strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="day" fontSize={11} interval="preserveStartEnd" minTickGap={12} />
          <YAxis fontSize={11} width={56} tickFormatter={(v: number) => format(v)} domain={[0, (max: number) => Math.max(max, limit ?? 0) || 1]} />
          <Tooltip formatter={(v) => format(Number(v))} />
          {legend && <Legend wrapperStyle={{ fontSize: 12 }} />}
          {series.map((s, i) => (
            <Bar key={s.key} dataKey={s.key} name={s.label} stackId="day" fill={PALETTE[i % PALETTE.length]} isAnimationActive={false} />
          ))}
          {limit != null && <ReferenceLine y={limit} stroke="var(--mantine-color-red-6)" strokeDasharray="4 2" label={{ value: limitLabel, position: 'insideTopRight', fontSize: 11 }} />}
        </BarChart>
      </ResponsiveContainer>
    </figure>
  );
}

// Cents unless the amounts are smaller than a cent (the offline models cost nothing, tests' calls fractions of one).
const money = (v: number) => `$${v > 0 && v < 0.01 ? v.toFixed(4) : v.toFixed(2)}`;
const count = (v: number) => String(Math.round(v));

/**
 * Cost and questions by day over the response's period, drawn against the daily cap and
 * quota when one tenant's limits are given; stacked by tenant when the usage spans several.
 */
export function UsageCharts({
  usage,
  dailyCap,
  dailyQuota,
  tenantNames,
}: {
  usage: { from: string; to: string; items: UsageDay[] };
  dailyCap?: number | null;
  dailyQuota?: number | null;
  tenantNames?: Map<string, string>;
}) {
  const days = daysOf(usage.from, usage.to);
  const seriesOf = tenantNames ? (id: string) => tenantNames.get(id) ?? id.slice(0, 8) : () => 'usage';
  const cost = chartRows(usage.items, days, costOf, seriesOf);
  const questions = chartRows(usage.items, days, (d) => d.questions, seriesOf);
  const single = (s: { rows: Record<string, number | string>[]; series: Series[] }, label: string) =>
    s.series.length ? s : { rows: s.rows, series: [{ key: 'usage', label }] };
  return (
    <SimpleGrid cols={{ base: 1, md: 2 }} my="sm" data-testid="usage-charts">
      <DayChart title="Cost by day (USD)" {...single(cost, 'cost')} limit={dailyCap} limitLabel="daily cap" format={money} testId="cost-chart" legend={Boolean(tenantNames)} />
      <DayChart title="Questions by day" {...single(questions, 'questions')} limit={dailyQuota} limitLabel="daily quota" format={count} testId="questions-chart" legend={Boolean(tenantNames)} />
    </SimpleGrid>
  );
}

/** Refusals by kind over the period, one bar a kind. */
export function RefusalsChart({ items }: { items: UsageDay[] }) {
  const totals: Record<string, number> = {};
  for (const d of items) for (const [kind, n] of Object.entries(d.refusals)) totals[kind] = (totals[kind] ?? 0) + n;
  const rows = Object.entries(totals).map(([kind, refused]) => ({ kind, refused }));
  if (rows.length === 0) return <Text size="sm">No request was refused in this period.</Text>;
  return (
    <figure style={{ margin: 0, minWidth: 0 }} data-testid="refusals-chart">
      <Text component="figcaption" size="sm" fw={500} mb={4}>
        Refusals by kind
      </Text>
      <ResponsiveContainer width="100%" height={40 + rows.length * 32}>
        <BarChart data={rows} layout="vertical" margin={{ top: 0, right: 16, bottom: 0, left: 0 }} accessibilityLayer>
          <XAxis type="number" allowDecimals={false} fontSize={11} />
          <YAxis type="category" dataKey="kind" width={190} fontSize={11} />
          <Tooltip />
          <Bar dataKey="refused" fill="var(--mantine-color-red-6)" isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
      {rows.map((r) => (
        <Text key={r.kind} size="xs" c="dimmed" span mr="sm">
          {r.kind}: {r.refused}
        </Text>
      ))}
    </figure>
  );
}
