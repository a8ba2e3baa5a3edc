import { Alert, Badge, Button, Grid, Group, Progress, Stack, Text, Title } from '@mantine/core';
import { useEffect } from 'react';
import { call, loci } from '../api';
import type { DocumentAddress } from '../document/address';
import { Passages } from '../document/Passages';
import { ProcessingHistory } from '../document/ProcessingHistory';
import { TakenFrom } from '../document/TakenFrom';
import { ErrorNote, useLoad, when } from '../ui';

const count = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const statusColor = { processed: 'green', failed: 'red', deferred: 'yellow', pending: 'blue', processing: 'blue' } as const;

/**
 * A document opened: what it is and where its ingestion stands, its passages in order (the
 * cited one highlighted), its processing history, and the entities and facts taken from it.
 * Followed every 2 s while it is being ingested.
 */
export function DocumentScreen({ address, backLabel, onBack }: { address: DocumentAddress; backLabel: string; onBack: () => void }) {
  const { documentId, chunkId } = address;
  const path = { params: { path: { documentId } } };
  const loaded = useLoad(() => call(loci.GET('/v1/documents/{documentId}', path)), [documentId]);
  const jobs = useLoad(() => call(loci.GET('/v1/documents/{documentId}/jobs', path)), [documentId]);

  const doc = loaded.data?.document_id === documentId ? loaded.data : null;
  const working = doc?.status === 'pending' || doc?.status === 'processing';
  useEffect(() => {
    if (!working) return;
    const timer = setInterval(() => {
      loaded.reload();
      jobs.reload();
    }, 2000);
    return () => clearInterval(timer);
  }, [working, documentId]);

  // What ingestion has written so far: the lists below are read again when it changes.
  const version = doc ? `${doc.status} ${doc.counts.chunks} ${doc.counts.entities} ${doc.counts.edges}` : '';
  return (
    <Stack data-testid="document-page">
      <Group>
        <Button variant="subtle" size="xs" onClick={onBack}>
          {backLabel}
        </Button>
      </Group>
      <ErrorNote error={loaded.error} />
      {doc && (
        <>
          <Stack gap={6}>
            <Title order={2} style={{ overflowWrap: 'anywhere' }}>
              {doc.name}
            </Title>
            <Group gap="xs" wrap="wrap">
              <Badge color={statusColor[doc.status]} data-testid="document-status">
                {doc.status}
              </Badge>
              <Text size="sm" c="dimmed">
                {doc.mime_type} · uploaded {when(doc.created_at)}
                {doc.processed_at ? ` · processed ${when(doc.processed_at)}` : ''}
                {doc.document_date ? ` · dated ${doc.document_date.slice(0, 10)}` : ''}
              </Text>
            </Group>
            <Text size="sm" data-testid="document-counts">
              {count(doc.counts.chunks, 'passage')} · {count(doc.counts.entities, 'entity', 'entities')} · {count(doc.counts.edges, 'fact')}
            </Text>
            {working && doc.progress.chunks_total > 0 && (
              <Progress value={(100 * doc.progress.chunks_done) / doc.progress.chunks_total} aria-label="Passages ingested" />
            )}
          </Stack>
          {doc.error && (
            <Alert color={doc.status === 'failed' ? 'red' : 'yellow'} title={doc.status === 'failed' ? 'Why it failed' : 'Why it waits'} data-testid="document-error">
              {doc.error}
            </Alert>
          )}
          <Grid gap="md">
            <Grid.Col span={{ base: 12, md: 8 }}>
              <Passages documentId={documentId} cited={chunkId} total={doc.counts.chunks} version={version} />
            </Grid.Col>
            <Grid.Col span={{ base: 12, md: 4 }}>
              <Stack>
                <ProcessingHistory document={doc} jobs={jobs.data?.items ?? null} />
                <ErrorNote error={jobs.error} />
                <TakenFrom documentId={documentId} counts={doc.counts} version={version} />
              </Stack>
            </Grid.Col>
          </Grid>
        </>
      )}
    </Stack>
  );
}
