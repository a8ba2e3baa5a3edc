import { Badge, Button, Group, Stack, Text } from '@mantine/core';
import { useEffect, useState } from 'react';
import type { Schemas } from '@loci/client';
import { call, Fact, loci } from '../api';
import { ErrorNote, Section } from '../ui';
import { FactList } from './FactList';

type Entity = Schemas['DocumentEntityList']['items'][number];

const PAGE = 50;

/**
 * What Loci took from the document: its entities (by name) and its facts (in the order they
 * became true, every state), 50 at a time with "More". `version` changes as ingestion adds to
 * them: both lists are read again from the start.
 */
export function TakenFrom({ documentId, counts, version }: { documentId: string; counts: { entities: number; edges: number }; version: string }) {
  const entities = usePages<Entity>((offset) =>
    call(loci.GET('/v1/documents/{documentId}/entities', { params: { path: { documentId }, query: { limit: PAGE, offset } } })).then((r) => r.items),
  [documentId, version]);
  const facts = usePages<Fact>((offset) =>
    call(loci.GET('/v1/documents/{documentId}/facts', { params: { path: { documentId }, query: { limit: PAGE, offset } } })).then((r) => r.items as Fact[]),
  [documentId, version]);

  return (
    <>
      <Section title={`Entities (${counts.entities})`} data-testid="document-entities">
        <Stack gap="xs" mt="sm">
          <ErrorNote error={entities.error} />
          {entities.items.length === 0 && !entities.error && <Text size="sm">None yet.</Text>}
          <Group gap={6}>
            {entities.items.map((e) => (
              <Badge key={e.entity_id} variant="light" color="gray" tt="none" size="lg" data-testid="document-entity" title={e.description ?? undefined} style={{ maxWidth: '100%' }}>
                {e.name}
                {e.type && (
                  <Text span size="xs" c="dimmed">
                    {' '}
                    · {e.type}
                  </Text>
                )}
              </Badge>
            ))}
          </Group>
          {entities.more && (
            <Button size="xs" variant="default" onClick={entities.next}>
              More entities
            </Button>
          )}
        </Stack>
      </Section>
      <Section title={`Facts (${counts.edges})`} data-testid="document-facts">
        <Stack gap="xs" mt="sm">
          <ErrorNote error={facts.error} />
          {facts.items.length === 0 && !facts.error && <Text size="sm">None yet.</Text>}
          <FactList facts={facts.items} />
          {facts.more && (
            <Button size="xs" variant="default" onClick={facts.next}>
              More facts
            </Button>
          )}
        </Stack>
      </Section>
    </>
  );
}

/** A list read a page at a time, appended by `next`; read again from the start when `deps` change. */
function usePages<T>(load: (offset: number) => Promise<T[]>, deps: unknown[]) {
  const [items, setItems] = useState<T[]>([]);
  const [more, setMore] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const take = (offset: number) =>
    load(offset)
      .then((page) => {
        setItems((had) => (offset === 0 ? page : [...had, ...page]));
        setMore(page.length === PAGE);
        setError(null);
      })
      .catch(setError);
  useEffect(() => void take(0), deps);
  return { items, more, error, next: () => void take(items.length) };
}
