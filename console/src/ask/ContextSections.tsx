import { Anchor, Badge, Button, Card, Group, List, Stack, Text } from '@mantine/core';
import { ReactNode, useState } from 'react';
import { hrefOf } from '../document/address';
import { Section } from '../ui';
import type { Context } from './useStreamedAnswer';

const count = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/**
 * What retrieval found for a context-only question, as the API returns it (best first): the
 * passages (each a link to its place on its document's page), the entities, the relations.
 */
export function ContextSections({ context }: { context: Context }) {
  const { chunks, entities, relations } = context;
  return (
    <Stack data-testid="context">
      <Text size="sm" data-testid="context-counts">
        {count(chunks.length, 'passage')}, {count(entities.length, 'entity', 'entities')}, {count(relations.length, 'relation')}
        {context.truncated ? ' (cut to the token budget)' : ''}
      </Text>
      <Section title={`Passages (${chunks.length})`} data-testid="context-passages">
        <Shown items={chunks} first={10} what="passages">
          {(c, i) => (
            <Card key={c.chunk_id ?? i} withBorder p="xs" data-testid="context-passage">
              <Group gap="xs" wrap="wrap">
                <Anchor size="sm" href={hrefOf({ documentId: c.document_id, chunkId: c.chunk_id })} style={{ overflowWrap: 'anywhere' }}>
                  {i + 1}. {c.document_name ?? `document ${c.document_id}`}
                </Anchor>
                {c.freshness && (
                  <Badge size="xs" variant="light">
                    {c.freshness}
                  </Badge>
                )}
              </Group>
              <Text size="sm" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
                {c.text}
              </Text>
            </Card>
          )}
        </Shown>
      </Section>
      <Section title={`Entities (${entities.length})`} data-testid="context-entities">
        <Shown items={entities} first={30} what="entities" list>
          {(e, i) => (
            <List.Item key={`${e.name}-${i}`} data-testid="context-entity" style={{ overflowWrap: 'anywhere' }}>
              <Text span size="sm" fw={600}>
                {e.name}
              </Text>
              {e.type && (
                <Badge size="xs" variant="light" color="gray" ml={6}>
                  {e.type}
                </Badge>
              )}
              {e.description && (
                <Text size="xs" c="dimmed">
                  {e.description}
                </Text>
              )}
            </List.Item>
          )}
        </Shown>
      </Section>
      <Section title={`Relations (${relations.length})`} data-testid="context-relations">
        <Shown items={relations} first={30} what="relations" list>
          {(r, i) => (
            <List.Item key={i} data-testid="context-relation" style={{ overflowWrap: 'anywhere' }}>
              <Text span size="sm">
                {r.source} → {r.target}
              </Text>
              {r.description && (
                <Text size="xs" c="dimmed">
                  {r.description}
                </Text>
              )}
              {r.keywords && (
                <Text size="xs" c="dimmed">
                  keywords: {r.keywords}
                </Text>
              )}
            </List.Item>
          )}
        </Shown>
      </Section>
    </Stack>
  );
}

/** The first items, the rest behind "Show all" (a long context need not be one long page). */
function Shown<T>({ items, first, what, list, children }: { items: T[]; first: number; what: string; list?: boolean; children: (item: T, i: number) => ReactNode }) {
  const [all, setAll] = useState(false);
  if (items.length === 0) {
    return (
      <Text size="sm" mt="xs">
        None.
      </Text>
    );
  }
  const shown = (all ? items : items.slice(0, first)).map(children);
  return (
    <Stack gap="xs" mt="xs" align="stretch">
      {list ? (
        <List listStyleType="none" spacing={6}>
          {shown}
        </List>
      ) : (
        shown
      )}
      {!all && items.length > first && (
        <Group>
          <Button size="xs" variant="default" onClick={() => setAll(true)}>
            Show all {items.length} {what}
          </Button>
        </Group>
      )}
    </Stack>
  );
}
