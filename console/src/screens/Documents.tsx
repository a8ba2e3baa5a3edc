import { Anchor, Badge, Button, Group, Select, Stack, Table, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { call, DocumentItem, loci } from '../api';
import { hrefOf } from '../document/address';
import { ErrorNote, ScrollTable, useLoad, when } from '../ui';

const PAGE = 20;

/** The tenant's documents, newest first, a page at a time, filtered by status. */
export function DocumentsScreen() {
  const [status, setStatus] = useState<string | null>(null);
  const [offset, setOffset] = useState(0);
  const [actionError, setActionError] = useState<unknown>(null);
  const { data, error, reload } = useLoad(
    () => call(loci.GET('/v1/documents', { params: { query: { limit: PAGE, offset, ...(status ? { status: status as DocumentItem['status'] } : {}) } } })),
    [status, offset],
  );
  const act = async (send: () => Promise<unknown>) => {
    setActionError(null);
    try {
      await send();
      reload();
    } catch (err) {
      setActionError(err);
    }
  };

  return (
    <Stack>
      <Title order={2}>Documents</Title>
      <Group align="end">
        <Select
          label="Status"
          placeholder="any"
          clearable
          data={['pending', 'processing', 'processed', 'failed', 'deferred']}
          value={status}
          onChange={(v) => {
            setStatus(v);
            setOffset(0);
          }}
        />
        <Button variant="default" onClick={reload}>
          Refresh
        </Button>
        <Button variant="default" component="a" href="#" onClick={(e: React.MouseEvent) => (e.preventDefault(), void downloadExport(setActionError))}>
          Export (JSON Lines)
        </Button>
      </Group>
      <ErrorNote error={error ?? actionError} />
      <ScrollTable minWidth={600} label="Documents">
        <Table striped>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Th>Status</Table.Th>
              <Table.Th>Passages / entities / facts</Table.Th>
              <Table.Th>Uploaded</Table.Th>
              <Table.Th>Actions</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {data?.items.map((d) => (
              <Table.Tr key={d.document_id} data-testid="document-row">
                <Table.Td style={{ overflowWrap: 'anywhere' }}>
                  {/* Its page: passages, what was taken from it, how it was processed. */}
                  <Anchor href={hrefOf({ documentId: d.document_id, chunkId: null })} data-testid="document-link">
                    {d.name}
                  </Anchor>
                </Table.Td>
                <Table.Td>
                  <Badge color={d.status === 'processed' ? 'green' : d.status === 'failed' ? 'red' : 'blue'}>{d.status}</Badge>
                  {d.error && (
                    <Text size="xs" c="red">
                      {d.error}
                    </Text>
                  )}
                </Table.Td>
                <Table.Td>
                  {d.counts.chunks} / {d.counts.entities} / {d.counts.edges}
                </Table.Td>
                <Table.Td>{when(d.created_at)}</Table.Td>
                <Table.Td>
                  <Group gap="xs" wrap="nowrap">
                    {(d.status === 'failed' || d.status === 'deferred') && (
                      <Button size="xs" variant="light" onClick={() => void act(() => call(loci.POST('/v1/documents/{documentId}/retry', { params: { path: { documentId: d.document_id } } })))}>
                        Retry
                      </Button>
                    )}
                    <Button size="xs" variant="subtle" color="red" onClick={() => void (confirm(`Delete ${d.name}?`) && act(() => call(loci.DELETE('/v1/documents/{documentId}', { params: { path: { documentId: d.document_id } } }))))}>
                      Delete
                    </Button>
                  </Group>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </ScrollTable>
      {data && data.items.length === 0 && <Text>No documents{status ? ` with status ${status}` : ''}.</Text>}
      <Group>
        <Button variant="default" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>
          Previous
        </Button>
        <Button variant="default" disabled={!data || data.items.length < PAGE} onClick={() => setOffset(offset + PAGE)}>
          Next
        </Button>
      </Group>
    </Stack>
  );
}

/** The export needs the Authorization header, so it is fetched and handed to the browser as a file. */
async function downloadExport(onError: (e: unknown) => void) {
  try {
    const blob = await call(loci.GET('/v1/export', { parseAs: 'blob' }));
    const url = URL.createObjectURL(blob);
    const a = document.createElement('a');
    a.href = url;
    a.download = 'loci-export.jsonl';
    a.click();
    URL.revokeObjectURL(url);
  } catch (err) {
    onError(err);
  }
}
