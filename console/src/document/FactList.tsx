import { Badge, Group, List, Text } from '@mantine/core';
import type { Fact } from '../api';
import { when } from '../ui';

const statusColor = { live: 'green', ended: 'gray', superseded: 'orange' } as const;

/** Facts as lines: "source relation target", their state, and when they were true. */
export function FactList({ facts, testId = 'document-fact' }: { facts: Fact[]; testId?: string }) {
  return (
    <List listStyleType="none" spacing={6} size="sm">
      {facts.map((f) => (
        <List.Item key={f.fact_id} data-testid={testId} style={{ overflowWrap: 'anywhere' }}>
          <Group gap={6} wrap="wrap">
            <Text span size="sm">
              {f.source.name} <b>{f.relation}</b> {f.target.name}
            </Text>
            <Badge size="xs" variant="light" color={statusColor[f.status]}>
              {f.status}
            </Badge>
          </Group>
          {(f.valid_at || f.invalid_at) && (
            <Text size="xs" c="dimmed">
              true {when(f.valid_at)} – {when(f.invalid_at)}
            </Text>
          )}
        </List.Item>
      ))}
    </List>
  );
}
