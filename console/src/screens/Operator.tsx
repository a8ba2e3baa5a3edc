import { Button, Card, Group, Modal, NumberInput, PasswordInput, Select, Stack, Table, Text, TextInput, Title, UnstyledButton } from '@mantine/core';
import { FormEvent, useMemo, useState } from 'react';
import { api, Limits, Tenant, UsageDay } from '../api';
import { ErrorNote, usd, useLoad } from '../ui';
import { UsageByDay } from './Usage';

type SortKey = 'name' | 'today' | 'month';

/** Operators: tenants with spend against caps, their limits, the platform cap, usage and refusals. */
export function OperatorScreen() {
  const tenants = useLoad(async () => {
    const list = await api<{ items: Tenant[] }>('GET', '/v1/admin/tenants?limit=200');
    // Spend comes with one tenant's GET only: fetched per tenant (an operator's list is short).
    return Promise.all(list.items.map((t) => api<Tenant>('GET', `/v1/admin/tenants/${t.id}`)));
  }, []);
  const usage = useLoad(() => api<{ items: UsageDay[] }>('GET', '/v1/admin/usage'), []);
  const [sort, setSort] = useState<SortKey>('today');
  const [editing, setEditing] = useState<Tenant | null>(null);

  const sorted = useMemo(() => {
    const rows = [...(tenants.data ?? [])];
    const by = { name: (t: Tenant) => t.name, today: (t: Tenant) => -(t.spend?.today_usd ?? 0), month: (t: Tenant) => -(t.spend?.this_month_usd ?? 0) }[sort];
    return rows.sort((a, b) => (by(a) < by(b) ? -1 : by(a) > by(b) ? 1 : a.name.localeCompare(b.name)));
  }, [tenants.data, sort]);
  const names = new Map((tenants.data ?? []).map((t) => [t.id, t.name]));
  const refusals = useMemo(() => {
    const total: Record<string, number> = {};
    for (const d of usage.data?.items ?? []) for (const [kind, n] of Object.entries(d.refusals)) total[kind] = (total[kind] ?? 0) + n;
    return Object.entries(total);
  }, [usage.data]);

  const header = (key: SortKey, label: string) => (
    <Table.Th aria-sort={sort === key ? (key === 'name' ? 'ascending' : 'descending') : 'none'}>
      <UnstyledButton onClick={() => setSort(key)} fw={700}>
        {label}
        {sort === key ? ' ▾' : ''}
      </UnstyledButton>
    </Table.Th>
  );

  return (
    <Stack>
      <Title order={2}>Tenants and limits</Title>
      <CreateTenant onCreated={tenants.reload} />
      <PlatformCap />
      <Card withBorder>
        <Title order={3} size="h4">
          Tenants
        </Title>
        <ErrorNote error={tenants.error} />
        <Table.ScrollContainer minWidth={640}>
          <Table data-testid="tenants">
            <Table.Thead>
              <Table.Tr>
                {header('name', 'Tenant')}
                {header('today', 'Today')}
                {header('month', 'This month')}
                <Table.Th>Questions a day</Table.Th>
                <Table.Th />
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {sorted.map((t) => (
                <Table.Tr key={t.id} data-testid="tenant-row">
                  <Table.Td>
                    {t.name}
                    <Text size="xs" c="dimmed">
                      {t.tier} · {t.billing}
                      {t.suspended_at ? ' · suspended' : ''}
                    </Text>
                  </Table.Td>
                  <Table.Td data-testid="tenant-today">
                    {usd(t.spend?.today_usd ?? 0)} / {usd(t.limits.daily_cost_cap_usd)}
                  </Table.Td>
                  <Table.Td>
                    {usd(t.spend?.this_month_usd ?? 0)} / {usd(t.limits.monthly_cost_cap_usd)}
                  </Table.Td>
                  <Table.Td data-testid="tenant-quota">{t.limits.daily_query_quota ?? 'unlimited'}</Table.Td>
                  <Table.Td>
                    <Button size="xs" variant="light" onClick={() => setEditing(t)} aria-label={`Edit limits of ${t.name}`}>
                      Edit limits
                    </Button>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      </Card>
      <Card withBorder>
        <Title order={3} size="h4">
          Usage by tenant and day
        </Title>
        <ErrorNote error={usage.error} />
        {usage.data && <UsageByDay days={usage.data.items} showTenant tenantNames={names} />}
        <Title order={3} size="h5" mt="md">
          Refusals by kind (30 days)
        </Title>
        {refusals.length === 0 ? <Text size="sm">None.</Text> : refusals.map(([kind, n]) => <Text key={kind} size="sm">{kind}: {n}</Text>)}
      </Card>
      <Modal opened={editing !== null} onClose={() => setEditing(null)} title={`Limits of ${editing?.name ?? ''}`}>
        {editing && (
          <EditLimits
            tenant={editing}
            onSaved={() => {
              setEditing(null);
              tenants.reload();
            }}
          />
        )}
      </Modal>
    </Stack>
  );
}

function CreateTenant({ onCreated }: { onCreated: () => void }) {
  const [name, setName] = useState('');
  const [tier, setTier] = useState<string | null>('free');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState<string | null>(null);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    setDone(null);
    try {
      const tenant = await api<Tenant>('POST', '/v1/admin/tenants', { name, tier, billing: 'platform' });
      // The tenant exists from here: a refused admin is reported, and the tenant stays listed.
      onCreated();
      if (email) await api('POST', `/v1/admin/tenants/${tenant.id}/users`, { email, password, role: 'admin' });
      setDone(`Created ${tenant.name}${email ? ` with admin ${email}` : ''}.`);
      setName('');
      setEmail('');
      setPassword('');
    } catch (err) {
      setError(err);
    }
  };
  return (
    <Card withBorder>
      <Title order={3} size="h4">
        New tenant
      </Title>
      <form onSubmit={submit} aria-label="Create a tenant">
        <Group align="end" my="sm">
          <TextInput label="Tenant name" required value={name} onChange={(e) => setName(e.currentTarget.value)} />
          <Select label="Tier" data={['free', 'pro', 'enterprise']} value={tier} onChange={setTier} allowDeselect={false} />
          <TextInput label="Admin email" type="email" value={email} onChange={(e) => setEmail(e.currentTarget.value)} />
          <PasswordInput label="Admin password" required={email !== ''} value={password} onChange={(e) => setPassword(e.currentTarget.value)} />
          <Button type="submit">Create tenant</Button>
        </Group>
      </form>
      {done && (
        <Text c="green" role="status">
          {done}
        </Text>
      )}
      <ErrorNote error={error} />
    </Card>
  );
}

const asNullable = (v: string | number) => (v === '' ? null : Number(v));

function EditLimits({ tenant, onSaved }: { tenant: Tenant; onSaved: () => void }) {
  const [limits, setLimits] = useState<Limits>(tenant.limits);
  const [error, setError] = useState<unknown>(null);
  const field = (key: keyof Limits, label: string, money: boolean) => (
    <NumberInput
      label={label}
      description="Empty = unlimited"
      min={money ? 0 : key === 'max_concurrent_queries' ? 1 : 0}
      decimalScale={money ? 2 : 0}
      allowNegative={false}
      value={limits[key] ?? ''}
      onChange={(v) => setLimits({ ...limits, [key]: asNullable(v) })}
    />
  );
  const save = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    try {
      await api('PATCH', `/v1/admin/tenants/${tenant.id}/limits`, limits);
      onSaved();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <form onSubmit={save} aria-label="Tenant limits">
      <Stack>
        {field('daily_cost_cap_usd', 'Daily cost cap (USD)', true)}
        {field('monthly_cost_cap_usd', 'Monthly cost cap (USD)', true)}
        {field('daily_query_quota', 'Questions a day', false)}
        {field('max_concurrent_queries', 'Concurrent questions a client', false)}
        <ErrorNote error={error} />
        <Button type="submit">Save limits</Button>
      </Stack>
    </form>
  );
}

function PlatformCap() {
  const current = useLoad(() => api<{ daily_cost_cap_usd: number | null }>('GET', '/v1/admin/platform/limits'), []);
  const [value, setValue] = useState<string | number | undefined>(undefined);
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);
  const shown = value ?? current.data?.daily_cost_cap_usd ?? '';
  const save = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    setSaved(false);
    try {
      await api('PUT', '/v1/admin/platform/limits', { daily_cost_cap_usd: asNullable(shown) });
      setSaved(true);
      current.reload();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <Card withBorder>
      <Title order={3} size="h4">
        Platform cap
      </Title>
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
      <ErrorNote error={error ?? current.error} />
    </Card>
  );
}
