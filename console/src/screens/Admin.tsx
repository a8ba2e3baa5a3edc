import { Alert, Badge, Button, Code, Group, NumberInput, Select, SimpleGrid, Stack, Table, Text, TextInput, Title, PasswordInput, Progress, VisuallyHidden } from '@mantine/core';
import { FormEvent, useState } from 'react';
import { call, loci } from '../api';
import { ErrorNote, ScrollTable, Section, usd, useAction, useLoad, when } from '../ui';
import { KeyRateForm } from './KeyRateForm';
import { UsageByDay } from './Usage';
import { UsageCharts } from './UsageCharts';

/** How long a new key lives (days); "never" sends no expiry. */
const KEY_LIFETIMES = [
  { value: 'never', label: 'never' },
  { value: '30', label: 'in 30 days' },
  { value: '90', label: 'in 90 days' },
  { value: '365', label: 'in a year' },
];

/** A tenant admin's screen: usage against the caps, users, API keys. */
export function AdminScreen() {
  return (
    <Stack>
      <Title order={2}>Users, keys and usage</Title>
      <UsageCard />
      <KeysCard />
      <UsersCard />
    </Stack>
  );
}

export function SpendGauge({ label, spent, cap }: { label: string; spent: number; cap: number | null }) {
  return (
    <div>
      <Text size="sm">
        {label}: {usd(spent)} of {usd(cap)}
      </Text>
      <Progress value={cap ? Math.min(100, (spent / cap) * 100) : 0} color={cap && spent >= cap ? 'red' : 'blue'} aria-label={`${label} against its cap`} />
    </div>
  );
}

/** Use against an ingestion quota (null = unlimited); MB to two decimals. */
export function QuotaGauge({ label, used, limit, unit }: { label: string; used: number; limit: number | null; unit?: 'MB' }) {
  const amount = (n: number) => (unit ? `${n.toFixed(2)} MB` : String(n));
  return (
    <div data-testid="quota-gauge">
      <Text size="sm">
        {label}: {amount(used)} of {limit === null ? 'unlimited' : amount(limit)}
      </Text>
      <Progress value={limit ? Math.min(100, (used / limit) * 100) : 0} color={limit !== null && used >= limit ? 'red' : 'blue'} aria-label={`${label} against its quota`} />
    </div>
  );
}

function UsageCard() {
  const tenant = useLoad(() => call(loci.GET('/v1/tenant')), []);
  const usage = useLoad(() => call(loci.GET('/v1/usage')), []);
  const t = tenant.data;
  return (
    <Section title="Usage" data-testid="usage">
      <ErrorNote error={tenant.error ?? usage.error} />
      {t && (
        <SimpleGrid cols={{ base: 1, sm: 2 }} my="sm">
          <SpendGauge label="Today" spent={t.spend?.today_usd ?? 0} cap={t.limits.daily_cost_cap_usd} />
          <SpendGauge label="This month" spent={t.spend?.this_month_usd ?? 0} cap={t.limits.monthly_cost_cap_usd} />
          <Text size="sm">Questions a day: {t.limits.daily_query_quota ?? 'unlimited'}</Text>
          <Text size="sm">Concurrent questions a client: {t.limits.max_concurrent_queries ?? 'unlimited'}</Text>
          <Text size="sm">
            Requests a minute: {t.limits.requests_per_minute ?? 'unlimited'}
            {t.limits.request_burst !== null ? `, ${t.limits.request_burst} at once` : ''}
          </Text>
          <Text size="sm">Documents ingested at once: {t.limits.max_running_jobs ?? 'unlimited'}</Text>
          <QuotaGauge label="Documents today" used={t.ingestion?.documents_today ?? 0} limit={t.limits.daily_document_quota} />
          <QuotaGauge label="Text taken in today" used={t.ingestion?.ingested_mb_today ?? 0} limit={t.limits.daily_ingest_mb} unit="MB" />
          <QuotaGauge label="Text stored" used={t.ingestion?.stored_mb ?? 0} limit={t.limits.max_stored_mb} unit="MB" />
        </SimpleGrid>
      )}
      {usage.data && t && <UsageCharts usage={usage.data} dailyCap={t.limits.daily_cost_cap_usd} dailyQuota={t.limits.daily_query_quota} />}
      {usage.data && <UsageByDay days={usage.data.items} dailyCap={t?.limits.daily_cost_cap_usd} />}
    </Section>
  );
}

function KeysCard() {
  const keys = useLoad(() => call(loci.GET('/v1/api-keys')), []);
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<string | null>('read,write');
  const [lifetime, setLifetime] = useState<string | null>('never');
  const [rate, setRate] = useState<string | number>('');
  const [created, setCreated] = useState<string | null>(null);
  const action = useAction();
  const create = (e: FormEvent) => {
    e.preventDefault();
    void action.run(async () => {
      const days = lifetime === 'never' || lifetime === null ? null : Number(lifetime);
      const expires_at = days === null ? null : new Date(Date.now() + days * 86_400_000).toISOString();
      const requests_per_minute = rate === '' ? null : Number(rate);
      const res = await call(loci.POST('/v1/api-keys', { body: { name, scopes: (scopes ?? 'read,write').split(',') as ('read' | 'write')[], expires_at, requests_per_minute } }));
      setCreated(res.key);
      setName('');
      setRate('');
      keys.reload();
    });
  };
  const revoke = (id: string) => action.run(() => call(loci.DELETE('/v1/api-keys/{keyId}', { params: { path: { keyId: id } } })).then(keys.reload));
  return (
    <Section title="API keys">
      <form onSubmit={create} aria-label="Create an API key">
        <Group align="end" my="sm">
          <TextInput label="Key name" required value={name} onChange={(e) => setName(e.currentTarget.value)} />
          <Select label="Scopes" data={[{ value: 'read,write', label: 'read and write' }, { value: 'read', label: 'read only' }]} value={scopes} onChange={setScopes} allowDeselect={false} />
          <Select label="Expires" data={KEY_LIFETIMES} value={lifetime} onChange={setLifetime} allowDeselect={false} />
          {/* A key's own rate, within the tenant's: one integration cannot use up what the others need. */}
          <NumberInput label="Requests a minute" description="Empty = the tenant's rate" min={1} allowNegative={false} allowDecimal={false} value={rate} onChange={setRate} w={170} />
          <Button type="submit" loading={action.busy}>
            Create key
          </Button>
        </Group>
      </form>
      {created && (
        <Alert color="green" title="Copy the key now: it is shown only once" withCloseButton onClose={() => setCreated(null)} data-testid="new-key">
          <Code block>{created}</Code>
        </Alert>
      )}
      <ErrorNote error={action.error ?? keys.error} />
      <ScrollTable minWidth={680} label="API keys">
        <Table className="stack-on-phone" data-testid="api-keys">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Th>Prefix</Table.Th>
              <Table.Th>Scopes</Table.Th>
              <Table.Th>Expires</Table.Th>
              <Table.Th>Rate</Table.Th>
              <Table.Th>Last used</Table.Th>
              <Table.Th>
                <VisuallyHidden>Actions</VisuallyHidden>
              </Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {keys.data?.items.map((k) => (
              <Table.Tr key={k.id} data-testid="api-key-row">
                <Table.Td>{k.name}</Table.Td>
                <Table.Td data-label="Prefix">
                  <Code>{k.prefix}</Code>
                </Table.Td>
                <Table.Td data-label="Scopes">{k.scopes.join(', ')}</Table.Td>
                <Table.Td data-label="Expires" data-testid="api-key-expires">
                  {k.expires_at ? when(k.expires_at) : 'never'}
                </Table.Td>
                <Table.Td data-label="Rate" data-testid="api-key-rate">
                  {k.requests_per_minute === null ? "the tenant's" : `${k.requests_per_minute} a minute`}
                </Table.Td>
                <Table.Td data-label="Last used">{when(k.last_used_at)}</Table.Td>
                <Table.Td>
                  {k.revoked_at ? (
                    <Badge color="gray">revoked</Badge>
                  ) : k.expires_at && Date.parse(k.expires_at) <= Date.now() ? (
                    <Badge color="gray">expired</Badge>
                  ) : (
                    <Button size="xs" variant="subtle" color="red" onClick={() => void revoke(k.id)}>
                      Revoke
                    </Button>
                  )}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </ScrollTable>
      <KeyRateForm keys={(keys.data?.items ?? []).filter((k) => !k.revoked_at && !(k.expires_at && Date.parse(k.expires_at) <= Date.now()))} onChanged={keys.reload} />
    </Section>
  );
}

function UsersCard() {
  const users = useLoad(() => call(loci.GET('/v1/users')), []);
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [role, setRole] = useState<string | null>('member');
  const action = useAction();
  const act = (send: () => Promise<unknown>) => action.run(() => send().then(users.reload));
  const create = async (e: FormEvent) => {
    e.preventDefault();
    if (await act(() => call(loci.POST('/v1/users', { body: { email, password, role: role as 'admin' | 'member' } })))) {
      setEmail('');
      setPassword('');
    }
  };
  return (
    <Section title="Users">
      <form onSubmit={(e) => void create(e)} aria-label="Add a user">
        <Group align="end" my="sm">
          <TextInput label="Email" type="email" required value={email} onChange={(e) => setEmail(e.currentTarget.value)} />
          <PasswordInput label="Password" description="At least 12 characters" required value={password} onChange={(e) => setPassword(e.currentTarget.value)} />
          <Select label="Role" data={['member', 'admin']} value={role} onChange={setRole} allowDeselect={false} />
          <Button type="submit">Add user</Button>
        </Group>
      </form>
      <ErrorNote error={action.error ?? users.error} />
      <ScrollTable minWidth={480} label="Users">
        <Table className="stack-on-phone" data-testid="users">
          <Table.Tbody>
            {users.data?.items.map((u) => (
              <Table.Tr key={u.id}>
                <Table.Td>{u.email}</Table.Td>
                <Table.Td>{u.role}</Table.Td>
                <Table.Td>{u.disabled_at ? <Badge color="gray">disabled</Badge> : <Badge color="green">active</Badge>}</Table.Td>
                <Table.Td>
                  <Group gap="xs" wrap="nowrap">
                    <Button size="xs" variant="subtle" onClick={() => void act(() => call(loci.PATCH('/v1/users/{userId}', { params: { path: { userId: u.id } }, body: { disabled: !u.disabled_at } })))}>
                      {u.disabled_at ? 'Enable' : 'Disable'}
                    </Button>
                    <Button size="xs" variant="subtle" color="red" onClick={() => void (confirm(`Delete ${u.email}?`) && act(() => call(loci.DELETE('/v1/users/{userId}', { params: { path: { userId: u.id } } }))))}>
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
  );
}
