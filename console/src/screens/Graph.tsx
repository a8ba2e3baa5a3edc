import { Anchor, Badge, Button, Card, Group, Stack, Table, Text, TextInput, Timeline, Title, UnstyledButton } from '@mantine/core';
import { FormEvent, Fragment, useState } from 'react';
import { call, Fact, loci } from '../api';
import { hrefOf } from '../document/address';
import { NeighbourhoodGraph } from '../graph/NeighbourhoodGraph';
import { ErrorNote, ScrollTable, when } from '../ui';

interface EntityItem {
  entity_id: string;
  name: string;
  type: string | null;
  description: string | null;
  fact_count: number;
}

const statusColor = { live: 'green', ended: 'gray', superseded: 'orange' } as const;

/** Entities by name; the graph of those opened; an entity's facts in time order; a fact's history on a timeline. */
export function GraphScreen() {
  const [q, setQ] = useState('');
  const [found, setFound] = useState<EntityItem[] | null>(null);
  const [entity, setEntity] = useState<{ entity: EntityItem; facts: Fact[] } | null>(null);
  const [history, setHistory] = useState<{ fact: Fact; history: Fact[] } | null>(null);
  const [error, setError] = useState<unknown>(null);

  const run = async <T,>(load: () => Promise<T>, set: (v: T) => void) => {
    setError(null);
    try {
      set(await load());
    } catch (err) {
      setError(err);
    }
  };
  const search = (e: FormEvent) => {
    e.preventDefault();
    void run(() => call(loci.GET('/v1/entities', { params: { query: { q, limit: 50 } } })), (r) => setFound(r.items));
  };
  const openEntity = (id: string) =>
    run(
      () => call(loci.GET('/v1/entities/{entityId}', { params: { path: { entityId: id } } })),
      (r) => {
        setEntity(r);
        setHistory(null);
      },
    );
  const openHistory = (id: string) => run(() => call(loci.GET('/v1/facts/{factId}/history', { params: { path: { factId: id } } })), setHistory);

  return (
    <Stack>
      <Title order={2}>Entities and facts</Title>
      <form onSubmit={search} aria-label="Search entities">
        <Group align="end">
          <TextInput label="Entity name" description="Words the name starts with" value={q} onChange={(e) => setQ(e.currentTarget.value)} required />
          <Button type="submit">Search</Button>
        </Group>
      </form>
      <ErrorNote error={error} />
      {found && (
        <Stack gap={4} data-testid="entity-results">
          {found.length === 0 && <Text>No entity has a name like that.</Text>}
          {found.map((en) => (
            <UnstyledButton key={en.entity_id} onClick={() => void openEntity(en.entity_id)} p={4} style={{ borderRadius: 4 }} data-testid="entity-result">
              <Text span fw={500}>
                {en.name}
              </Text>{' '}
              <Text span size="sm" c="dimmed">
                {en.type ?? ''} · {en.fact_count} facts
              </Text>
            </UnstyledButton>
          ))}
        </Stack>
      )}
      <NeighbourhoodGraph opened={entity} onOpen={(id) => void openEntity(id)} />
      {entity && (
        <Card withBorder data-testid="entity">
          <Title order={3}>{entity.entity.name}</Title>
          {entity.entity.description && <Text size="sm">{entity.entity.description}</Text>}
          <ScrollTable minWidth={640} label={`Facts of ${entity.entity.name}`}>
            <Table>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Fact</Table.Th>
                  <Table.Th>State</Table.Th>
                  <Table.Th>True from – until</Table.Th>
                  <Table.Th>Learned – superseded</Table.Th>
                  <Table.Th>Documents</Table.Th>
                  <Table.Th>History</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {entity.facts.map((f) => (
                  <Table.Tr key={f.fact_id} data-testid="fact-row">
                    <Table.Td>
                      {f.source.name} <b>{f.relation}</b> {f.target.name}
                    </Table.Td>
                    <Table.Td>
                      <Badge color={statusColor[f.status]}>{f.status}</Badge>
                    </Table.Td>
                    <Table.Td>
                      {when(f.valid_at)} – {when(f.invalid_at)}
                    </Table.Td>
                    <Table.Td>
                      {when(f.created_at)} – {when(f.expired_at)}
                    </Table.Td>
                    <Table.Td>
                      {f.documents.map((d, i) => (
                        <Fragment key={d.document_id}>
                          {i > 0 && ', '}
                          <Anchor href={hrefOf({ documentId: d.document_id, chunkId: null })}>{d.name}</Anchor>
                        </Fragment>
                      ))}
                    </Table.Td>
                    <Table.Td>
                      <Button size="xs" variant="light" onClick={() => void openHistory(f.fact_id)}>
                        History
                      </Button>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </ScrollTable>
        </Card>
      )}
      {history && (
        <Card withBorder data-testid="history">
          <Title order={3} size="h4" mb="sm">
            History of {history.fact.source.name} {history.fact.relation}
          </Title>
          <Timeline active={history.history.length - 1} bulletSize={16}>
            {history.history.map((f) => (
              <Timeline.Item key={f.fact_id} title={`${f.relation} ${f.target.name}`}>
                <Badge size="sm" color={statusColor[f.status]}>
                  {f.status}
                </Badge>
                <Text size="xs" c="dimmed">
                  true {when(f.valid_at)} – {when(f.invalid_at)}; learned {when(f.created_at)}
                  {f.expired_at ? `, superseded ${when(f.expired_at)}` : ''}
                </Text>
              </Timeline.Item>
            ))}
          </Timeline>
        </Card>
      )}
    </Stack>
  );
}
