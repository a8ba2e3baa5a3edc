import { Progress, Table, Text } from '@mantine/core';
import { UsageDay } from '../api';
import { ScrollTable } from '../ui';

/** Days as rows with a bar each: cost against the day's cap when there is one, else against the busiest day. */
export function UsageByDay({ days, dailyCap, showTenant, tenantNames }: { days: UsageDay[]; dailyCap?: number | null; showTenant?: boolean; tenantNames?: Map<string, string> }) {
  if (days.length === 0) return <Text size="sm">No usage in this period.</Text>;
  const cost = (d: UsageDay) => d.cost_usd.platform + d.cost_usd.own_key;
  const scale = dailyCap ?? Math.max(...days.map(cost), 0.000001);
  return (
    <ScrollTable minWidth={560} label="Usage by day">
      <Table data-testid="usage-table">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Day</Table.Th>
            {showTenant && <Table.Th>Tenant</Table.Th>}
            <Table.Th>Questions</Table.Th>
            <Table.Th>Model calls</Table.Th>
            <Table.Th>Documents</Table.Th>
            <Table.Th>Cost (USD)</Table.Th>
            <Table.Th w={160}>{dailyCap ? 'Of the daily cap' : 'Cost'}</Table.Th>
            <Table.Th>Refusals</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {days.map((d) => (
            <Table.Tr key={`${d.tenant_id}-${d.day}`}>
              <Table.Td>{d.day}</Table.Td>
              {showTenant && <Table.Td>{tenantNames?.get(d.tenant_id) ?? d.tenant_id.slice(0, 8)}</Table.Td>}
              <Table.Td>{d.questions}</Table.Td>
              <Table.Td>{d.model_calls}</Table.Td>
              <Table.Td>
                {d.documents} ({d.ingested_mb.toFixed(2)} MB)
              </Table.Td>
              <Table.Td>{cost(d).toFixed(4)}</Table.Td>
              <Table.Td>
                <Progress value={Math.min(100, (cost(d) / scale) * 100)} aria-label={`cost on ${d.day}`} />
              </Table.Td>
              <Table.Td>
                {Object.entries(d.refusals)
                  .map(([kind, n]) => `${kind}: ${n}`)
                  .join(', ') || '—'}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </ScrollTable>
  );
}
