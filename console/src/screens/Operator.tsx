import { Badge, Button, Group, Modal, NumberInput, PasswordInput, Progress, Select, Stack, Table, Text, TextInput, Title, UnstyledButton, VisuallyHidden } from '@mantine/core';
import type { Schemas } from '@loci/client';
import { FormEvent, useMemo, useState } from 'react';
import { call, loci } from '../api';
import { ErrorNote, ScrollTable, Section, usd, useAction, useLoad } from '../ui';
import { DeleteDialog, SuspendDialog } from './TenantLifecycle';
import { asNullable, EditLimits } from './TenantLimits';
import { UsageByDay } from './Usage';
import { RefusalsChart, UsageCharts } from './UsageCharts';

type Tenant = Schemas['Tenant'];
type Queue = NonNullable<Tenant['queue']>;

type SortKey = 'name' | 'today' | 'month' | 'today_share' | 'month_share' | 'queue' | 'last_hour';
const SORT_LABELS: Record<SortKey, string> = {
  name: 'tenant name',
  today: "today's spend",
  month: "this month's spend",
  today_share: "today's spend against the daily cap",
  month_share: "this month's spend against the monthly cap",
  queue: 'jobs in the queue',
  last_hour: 'documents processed in the last hour',
};

/** Every job the tenant has not finished: waiting, running, waiting to retry, parked. */
const inQueue = (q: Queue | undefined) => (q ? q.waiting + q.running + q.scheduled + q.deferred : 0);
const seconds = (s: number) => (s < 90 ? `${s} s` : s < 5400 ? `${Math.round(s / 60)} min` : `${Math.round(s / 3600)} h`);

/** The queue in words: what is waiting, running, to retry, parked, and how long the oldest has waited. */
function QueueCell({ queue }: { queue: Queue | undefined }) {
  if (!queue || inQueue(queue) === 0) return <Text size="sm" c="dimmed">empty</Text>;
  const parts = [
    queue.waiting && `${queue.waiting} waiting`,
    queue.running && `${queue.running} running`,
    queue.scheduled && `${queue.scheduled} to retry`,
    queue.deferred && `${queue.deferred} parked`,
  ].filter(Boolean);
  return (
    <>
      <Text size="sm">{parts.join(' · ')}</Text>
      {queue.waiting > 0 && (
        <Text size="xs" c={queue.oldest_waiting_seconds >= 300 ? 'orange' : 'dimmed'}>
          oldest waiting {seconds(queue.oldest_waiting_seconds)}
        </Text>
      )}
    </>
  );
}

/** Spend as a share of its cap; an unlimited tenant sorts as 0, a zero cap as full. */
const share = (spent: number, cap: number | null) => (cap === null ? 0 : cap === 0 ? 1 : spent / cap);
const SORT_VALUE: Record<SortKey, (t: Tenant) => number | string> = {
  name: (t) => t.name.toLowerCase(),
  today: (t) => t.spend?.today_usd ?? 0,
  month: (t) => t.spend?.this_month_usd ?? 0,
  today_share: (t) => share(t.spend?.today_usd ?? 0, t.limits.daily_cost_cap_usd),
  month_share: (t) => share(t.spend?.this_month_usd ?? 0, t.limits.monthly_cost_cap_usd),
  queue: (t) => inQueue(t.queue),
  last_hour: (t) => t.queue?.processed_last_hour ?? 0,
};

const PAGE = 200;
const MAX_TENANTS = 5_000;

/** Every tenant, a page at a time; each page carries its tenants' spend and queues (a statement each a page). */
async function allTenants(): Promise<Tenant[]> {
  const all: Tenant[] = [];
  for (let offset = 0; all.length < MAX_TENANTS; offset += PAGE) {
    const page = await call(loci.GET('/v1/admin/tenants', { params: { query: { limit: PAGE, offset } } }));
    all.push(...page.items);
    if (page.items.length < PAGE) break;
  }
  return all;
}

/**
 * Operators: tenants with spend against caps, their queues, limits, suspension and deletion; the
 * platform cap, usage and refusals.
 */
export function OperatorScreen() {
  const tenants = useLoad(allTenants, []);
  const usage = useLoad(() => call(loci.GET('/v1/admin/usage')), []);
  const [sort, setSort] = useState<{ key: SortKey; descending: boolean }>({ key: 'today', descending: true });
  const [editing, setEditing] = useState<Tenant | null>(null);
  const [suspending, setSuspending] = useState<Tenant | null>(null);
  const [deleting, setDeleting] = useState<Tenant | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const lifecycle = useAction();
  const finished = (message: string) => {
    setSuspending(null);
    setDeleting(null);
    setDone(message);
    tenants.reload();
  };
  const resume = (t: Tenant) =>
    lifecycle.run(async () => {
      setDone(null);
      await call(loci.POST('/v1/admin/tenants/{tenantId}/resume', { params: { path: { tenantId: t.id } } }));
      finished(`Resumed ${t.name}.`);
    });

  const sorted = useMemo(() => {
    const by = SORT_VALUE[sort.key];
    const direction = sort.descending ? -1 : 1;
    return [...(tenants.data ?? [])].sort((a, b) => (by(a) < by(b) ? -direction : by(a) > by(b) ? direction : a.name.localeCompare(b.name)));
  }, [tenants.data, sort]);
  const names = useMemo(() => new Map((tenants.data ?? []).map((t) => [t.id, t.name])), [tenants.data]);

  // A header sorts by its column; again, the other way. Money and work start from the most.
  const header = (key: SortKey, label: string) => {
    const active = sort.key === key;
    return (
      <Table.Th aria-sort={active ? (sort.descending ? 'descending' : 'ascending') : 'none'}>
        <UnstyledButton
          onClick={() => setSort(active ? { key, descending: !sort.descending } : { key, descending: key !== 'name' })}
          fw={700}
          aria-label={`Sort by ${SORT_LABELS[key]}`}
        >
          {label}
          {active ? (sort.descending ? ' ▾' : ' ▴') : ''}
        </UnstyledButton>
      </Table.Th>
    );
  };
  const against = (spent: number, cap: number | null, key: SortKey, name: string) => (
    <>
      {usd(spent)} / {usd(cap)}
      {cap !== null && (
        <Progress
          size="sm"
          mt={4}
          value={Math.min(100, share(spent, cap) * 100)}
          color={share(spent, cap) >= 1 ? 'red' : share(spent, cap) >= 0.8 ? 'orange' : 'blue'}
          aria-label={`${name}: ${SORT_LABELS[key]}`}
        />
      )}
    </>
  );

  return (
    <Stack>
      <Title order={2}>Tenants and limits</Title>
      <CreateTenant onCreated={tenants.reload} />
      <PlatformCap />
      <Section title="Tenants">
        <ErrorNote error={tenants.error ?? lifecycle.error} />
        {done && (
          <Text c="green" role="status" my="xs">
            {done}
          </Text>
        )}
        <Group gap="xs" my="xs">
          <Text size="sm">Sort by share of cap:</Text>
          <Button size="compact-xs" variant={sort.key === 'today_share' ? 'filled' : 'default'} aria-pressed={sort.key === 'today_share'} onClick={() => setSort({ key: 'today_share', descending: true })}>
            daily
          </Button>
          <Button size="compact-xs" variant={sort.key === 'month_share' ? 'filled' : 'default'} aria-pressed={sort.key === 'month_share'} onClick={() => setSort({ key: 'month_share', descending: true })}>
            monthly
          </Button>
          <Button size="compact-xs" variant="subtle" ml="auto" loading={tenants.loading} onClick={tenants.reload}>
            Refresh
          </Button>
        </Group>
        <ScrollTable minWidth={640} label="Tenants">
          <Table data-testid="tenants" className="stack-on-phone">
            <Table.Thead>
              <Table.Tr>
                {header('name', 'Tenant')}
                {header('today', 'Today')}
                {header('month', 'This month')}
                <Table.Th>Questions a day</Table.Th>
                {header('queue', 'Queue')}
                {header('last_hour', 'Last hour')}
                <Table.Th>
                  <VisuallyHidden>Actions</VisuallyHidden>
                </Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {sorted.map((t) => (
                <Table.Tr key={t.id} data-testid="tenant-row">
                  <Table.Td>
                    <span data-testid="tenant-name">{t.name}</span>
                    <Text size="xs" c="dimmed">
                      {t.tier} · {t.billing}
                    </Text>
                    {t.suspended_at && (
                      <Badge color="orange" size="sm" data-testid="tenant-suspended">
                        suspended
                      </Badge>
                    )}
                  </Table.Td>
                  <Table.Td data-testid="tenant-today" data-label="Today">{against(t.spend?.today_usd ?? 0, t.limits.daily_cost_cap_usd, 'today_share', t.name)}</Table.Td>
                  <Table.Td data-testid="tenant-month" data-label="This month">{against(t.spend?.this_month_usd ?? 0, t.limits.monthly_cost_cap_usd, 'month_share', t.name)}</Table.Td>
                  <Table.Td data-testid="tenant-quota" data-label="Questions a day">{t.limits.daily_query_quota ?? 'unlimited'}</Table.Td>
                  <Table.Td data-testid="tenant-queue" data-label="Queue">
                    <QueueCell queue={t.queue} />
                  </Table.Td>
                  <Table.Td data-testid="tenant-last-hour" data-label="Last hour">
                    <Text size="sm">{t.queue?.processed_last_hour ?? 0} processed</Text>
                    {(t.queue?.failed_last_hour ?? 0) > 0 && (
                      <Text size="xs" c="red">
                        {t.queue!.failed_last_hour} failed
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td>
                    <Group gap={6}>
                      <Button size="xs" variant="light" onClick={() => setEditing(t)} aria-label={`Edit limits of ${t.name}`}>
                        Edit limits
                      </Button>
                      {t.suspended_at ? (
                        <Button size="xs" variant="light" color="green" onClick={() => void resume(t)} aria-label={`Resume ${t.name}`}>
                          Resume
                        </Button>
                      ) : (
                        <Button size="xs" variant="light" color="orange" onClick={() => setSuspending(t)} aria-label={`Suspend ${t.name}`}>
                          Suspend
                        </Button>
                      )}
                      <Button size="xs" variant="subtle" color="red" onClick={() => setDeleting(t)} aria-label={`Delete ${t.name}`}>
                        Delete
                      </Button>
                    </Group>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </ScrollTable>
      </Section>
      <Section title="Usage by tenant and day" data-testid="operator-usage">
        <ErrorNote error={usage.error} />
        {usage.data && tenants.data && <UsageCharts usage={usage.data} tenantNames={names} />}
        {usage.data && <UsageByDay days={usage.data.items} showTenant tenantNames={names} />}
      </Section>
      <Section title="Refusals by kind (30 days)">{usage.data && <RefusalsChart items={usage.data.items} />}</Section>
      <Modal opened={editing !== null} onClose={() => setEditing(null)} title={`Limits of ${editing?.name ?? ''}`} size="lg">
        {editing && (
          <EditLimits
            tenantId={editing.id}
            limits={editing.limits}
            onSaved={() => {
              setEditing(null);
              tenants.reload();
            }}
          />
        )}
      </Modal>
      <SuspendDialog tenant={suspending} onClose={() => setSuspending(null)} onDone={finished} />
      <DeleteDialog tenant={deleting} onClose={() => setDeleting(null)} onDone={finished} />
    </Stack>
  );
}

function CreateTenant({ onCreated }: { onCreated: () => void }) {
  const [name, setName] = useState('');
  const [tier, setTier] = useState<string | null>('free');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const action = useAction();
  const [done, setDone] = useState<string | null>(null);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setDone(null);
    void action.run(async () => {
      const tenant = await call(loci.POST('/v1/admin/tenants', { body: { name, tier: (tier ?? 'free') as 'free', billing: 'platform' } }));
      // The tenant exists from here: a refused admin is reported, and the tenant stays listed.
      onCreated();
      if (email) await call(loci.POST('/v1/admin/tenants/{tenantId}/users', { params: { path: { tenantId: tenant.id } }, body: { email, password, role: 'admin' } }));
      setDone(`Created ${tenant.name}${email ? ` with admin ${email}` : ''}.`);
      setName('');
      setEmail('');
      setPassword('');
    });
  };
  return (
    <Section title="New tenant">
      <form onSubmit={submit} aria-label="Create a tenant">
        <Group align="end" my="sm">
          <TextInput label="Tenant name" required value={name} onChange={(e) => setName(e.currentTarget.value)} />
          <Select label="Tier" data={['free', 'pro', 'enterprise']} value={tier} onChange={setTier} allowDeselect={false} />
          <TextInput label="Admin email" type="email" value={email} onChange={(e) => setEmail(e.currentTarget.value)} />
          <PasswordInput label="Admin password" required={email !== ''} value={password} onChange={(e) => setPassword(e.currentTarget.value)} />
          <Button type="submit" loading={action.busy}>
            Create tenant
          </Button>
        </Group>
      </form>
      {done && (
        <Text c="green" role="status">
          {done}
        </Text>
      )}
      <ErrorNote error={action.error} />
    </Section>
  );
}

function PlatformCap() {
  const current = useLoad(() => call(loci.GET('/v1/admin/platform/limits')), []);
  const [value, setValue] = useState<string | number | undefined>(undefined);
  const action = useAction();
  const [saved, setSaved] = useState(false);
  const shown = value ?? current.data?.daily_cost_cap_usd ?? '';
  const save = (e: FormEvent) => {
    e.preventDefault();
    setSaved(false);
    void action.run(async () => {
      await call(loci.PUT('/v1/admin/platform/limits', { body: { daily_cost_cap_usd: asNullable(shown) } }));
      setSaved(true);
      current.reload();
    });
  };
  return (
    <Section title="Platform cap">
      {current.data && <Text size="sm">Now: {usd(current.data.daily_cost_cap_usd)} a day on the platform's own key.</Text>}
      <form onSubmit={save} aria-label="Platform cap">
        <Group align="end" my="sm">
          <NumberInput label="Platform daily cap (USD)" description="Empty = unlimited" min={0} decimalScale={2} allowNegative={false} value={shown} onChange={setValue} />
          <Button type="submit">Save platform cap</Button>
        </Group>
      </form>
      {saved && (
        <Text c="green" role="status">
          Saved.
        </Text>
      )}
      <ErrorNote error={action.error ?? current.error} />
    </Section>
  );
}
