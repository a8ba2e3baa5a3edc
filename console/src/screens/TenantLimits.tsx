import { Button, Fieldset, NumberInput, SimpleGrid, Stack } from '@mantine/core';
import { FormEvent, useState } from 'react';
import { call, Limits, loci } from '../api';
import { ErrorNote, useAction } from '../ui';

export const asNullable = (v: string | number) => (v === '' ? null : Number(v));

/** Limits whose 0 would refuse everything: the API takes 1 or more (or null). */
const AT_LEAST_ONE: ReadonlyArray<keyof Limits> = ['max_concurrent_queries', 'max_running_jobs', 'requests_per_minute', 'request_burst'];

/** Every limit PATCH /v1/admin/tenants/{tenantId}/limits takes, by what it bounds. */
const GROUPS: { legend: string; fields: { key: keyof Limits; label: string; money?: true }[] }[] = [
  {
    legend: 'Spend',
    fields: [
      { key: 'daily_cost_cap_usd', label: 'Daily cost cap (USD)', money: true },
      { key: 'monthly_cost_cap_usd', label: 'Monthly cost cap (USD)', money: true },
    ],
  },
  {
    legend: 'Questions',
    fields: [
      { key: 'daily_query_quota', label: 'Questions a day' },
      { key: 'max_concurrent_queries', label: 'Concurrent questions a client' },
    ],
  },
  {
    legend: 'Request rate',
    fields: [
      { key: 'requests_per_minute', label: 'Requests a minute' },
      { key: 'request_burst', label: 'Request burst' },
    ],
  },
  {
    legend: 'Ingestion',
    fields: [
      { key: 'max_running_jobs', label: 'Documents ingested at once' },
      { key: 'daily_document_quota', label: 'Documents a day' },
      { key: 'daily_ingest_mb', label: 'Text taken in a day (MB)' },
      { key: 'max_stored_mb', label: 'Text stored (MB)' },
    ],
  },
];

/** The API's validation problems by field (`{"error": {"details": [{field, message}]}}`). */
function fieldProblems(body: unknown): Record<string, string> {
  const details = (body as { error?: { details?: unknown } } | null)?.error?.details;
  if (!Array.isArray(details)) return {};
  return Object.fromEntries(details.filter((d) => d && typeof d.field === 'string').map((d) => [d.field, String(d.message)]));
}

/**
 * A tenant's limits, each sent as shown (empty: unlimited). Bounds the API checks are left to it,
 * so what it refuses is said under the field it names.
 */
export function EditLimits({ tenantId, limits: initial, onSaved }: { tenantId: string; limits: Limits; onSaved: () => void }) {
  const [limits, setLimits] = useState<Limits>(initial);
  const [problems, setProblems] = useState<Record<string, string>>({});
  const action = useAction();
  const save = (e: FormEvent) => {
    e.preventDefault();
    setProblems({});
    void action.run(async () => {
      const answer = await loci.PATCH('/v1/admin/tenants/{tenantId}/limits', { params: { path: { tenantId } }, body: limits });
      if (!answer.response.ok) setProblems(fieldProblems(answer.error));
      await call(Promise.resolve(answer));
      onSaved();
    });
  };
  return (
    <form onSubmit={save} aria-label="Tenant limits" noValidate>
      <Stack>
        {GROUPS.map((group) => (
          <Fieldset key={group.legend} legend={group.legend}>
            <SimpleGrid cols={{ base: 1, sm: 2 }}>
              {group.fields.map(({ key, label, money }) => (
                <NumberInput
                  key={key}
                  label={label}
                  description="Empty = unlimited"
                  min={money ? 0 : AT_LEAST_ONE.includes(key) ? 1 : 0}
                  decimalScale={money ? 2 : 0}
                  allowNegative={false}
                  value={limits[key] ?? ''}
                  onChange={(v) => setLimits({ ...limits, [key]: asNullable(v) })}
                  error={problems[key]}
                />
              ))}
            </SimpleGrid>
          </Fieldset>
        ))}
        <ErrorNote error={action.error} />
        <Button type="submit" loading={action.busy}>
          Save limits
        </Button>
      </Stack>
    </form>
  );
}
