import { Alert, Button, Group, List, Loader, Modal, Stack, Text, TextInput } from '@mantine/core';
import { FormEvent, useState } from 'react';
import { call, loci } from '../api';
import { ErrorNote, useAction, useLoad } from '../ui';

/** The tenant a dialog acts on, as the list shows it. */
export interface TenantToAct {
  id: string;
  name: string;
  suspended_at: string | null;
  ingestion?: { stored_mb: number };
}

const count = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
const megabytes = (mb: number) => (mb > 0 && mb < 0.01 ? 'under 0.01 MB' : `${mb.toFixed(2)} MB`);

/** Suspending stops a customer at once: said, then confirmed. */
export function SuspendDialog({ tenant, onClose, onDone }: { tenant: TenantToAct | null; onClose: () => void; onDone: (message: string) => void }) {
  const action = useAction();
  const suspend = (id: string, name: string) =>
    action.run(async () => {
      await call(loci.POST('/v1/admin/tenants/{tenantId}/suspend', { params: { path: { tenantId: id } } }));
      onDone(`Suspended ${name}.`);
    });
  return (
    <Modal opened={tenant !== null} onClose={onClose} title={`Suspend ${tenant?.name ?? ''}?`}>
      {tenant && (
        <Stack>
          <Text>
            Every request of {tenant.name}, by its users and by its API keys, is refused (403 <code>tenant_suspended</code>) and its documents wait
            unprocessed, until it is resumed. Nothing is deleted.
          </Text>
          <ErrorNote error={action.error} />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button color="orange" loading={action.busy} onClick={() => void suspend(tenant.id, tenant.name)} data-autofocus>
              Suspend {tenant.name}
            </Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}

/**
 * Deleting a tenant is for good: the dialog names what goes (the API's counts) and deletes only
 * once the tenant's name is typed.
 */
export function DeleteDialog({ tenant, onClose, onDone }: { tenant: TenantToAct | null; onClose: () => void; onDone: (message: string) => void }) {
  return (
    <Modal opened={tenant !== null} onClose={onClose} title={`Delete ${tenant?.name ?? ''}`} size="lg">
      {tenant && <DeleteTenant key={tenant.id} tenant={tenant} onClose={onClose} onDone={onDone} />}
    </Modal>
  );
}

function DeleteTenant({ tenant, onClose, onDone }: { tenant: TenantToAct; onClose: () => void; onDone: (message: string) => void }) {
  const holdings = useLoad(() => call(loci.GET('/v1/admin/tenants/{tenantId}/holdings', { params: { path: { tenantId: tenant.id } } })), [tenant.id]);
  const [typed, setTyped] = useState('');
  const action = useAction();
  const exporting = useAction();
  const h = holdings.data;
  const confirmed = typed === tenant.name;
  const remove = (e: FormEvent) => {
    e.preventDefault();
    if (!confirmed) return;
    void action.run(async () => {
      await call(loci.DELETE('/v1/admin/tenants/{tenantId}', { params: { path: { tenantId: tenant.id } } }));
      onDone(`Deleted ${tenant.name} and all its data.`);
    });
  };
  return (
    <form onSubmit={remove} aria-label={`Delete ${tenant.name}`}>
      <Stack>
        <Text>Deleting {tenant.name} removes for good:</Text>
        {holdings.loading && !h && <Loader size="sm" aria-label="Counting what the tenant holds" />}
        <ErrorNote error={holdings.error} />
        {h && (
          <List data-testid="delete-holdings">
            <List.Item>
              {count(h.documents, 'document')} ({megabytes(tenant.ingestion?.stored_mb ?? 0)} of text) and {count(h.gb_datasets, 'gb memory dataset')}
            </List.Item>
            <List.Item>
              {count(h.entities, 'entity', 'entities')} and {count(h.facts, 'fact')} of its graph
            </List.Item>
            <List.Item>
              {count(h.users, 'user')} and {count(h.api_keys, 'live API key')}
            </List.Item>
            <List.Item>its ingestion jobs, usage and spend records, and its limit counters</List.Item>
          </List>
        )}
        <Alert color="red" title="This cannot be undone">
          <Text size="sm">
            Export the tenant's data first if it may be needed. {tenant.suspended_at ? '' : 'Suspend it first so no request is in flight when it goes.'}
          </Text>
          <Button mt="xs" size="xs" variant="default" loading={exporting.busy} onClick={() => void exporting.run(() => downloadExport(tenant))}>
            Export {tenant.name}'s data
          </Button>
          <ErrorNote error={exporting.error} />
        </Alert>
        <TextInput
          label={`Type ${tenant.name} to confirm`}
          value={typed}
          onChange={(e) => setTyped(e.currentTarget.value)}
          autoComplete="off"
          spellCheck={false}
          data-autofocus
        />
        <ErrorNote error={action.error} />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" color="red" disabled={!confirmed} loading={action.busy}>
            Delete {tenant.name}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** The operators' export of one tenant, fetched with the session's header and handed over as a file. */
async function downloadExport(tenant: TenantToAct) {
  const blob = await call(loci.GET('/v1/admin/tenants/{tenantId}/export', { params: { path: { tenantId: tenant.id } }, parseAs: 'blob' }));
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = `loci-export-${tenant.id}.jsonl`;
  a.click();
  URL.revokeObjectURL(url);
}
