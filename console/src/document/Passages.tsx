import { Badge, Button, Card, Group, Mark, Stack, Text, Title } from '@mantine/core';
import { useEffect, useRef, useState } from 'react';
import type { Schemas } from '@loci/client';
import { ApiError, call, Fact, loci } from '../api';
import { ErrorNote, Section } from '../ui';
import { FactList } from './FactList';

type Chunk = Schemas['DocumentChunkList']['items'][number];
type Page = { offset: number; items: Chunk[] };

const PAGE = 20;

/**
 * The document's passages in their order, a page at a time. With `cited` (the chunk an answer's
 * source names), the page that holds it comes first, with that passage highlighted, scrolled into
 * view and focused (keyboard and screen reader land on it), and what was taken from it shown.
 * `version` changes as ingestion writes passages: the page shown is read again.
 */
export function Passages({ documentId, cited, total, version }: { documentId: string; cited: string | null; total: number; version: string }) {
  const [page, setPage] = useState<Page | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [citedMissing, setCitedMissing] = useState(false);
  const citedCard = useRef<HTMLDivElement>(null);
  const scrolledTo = useRef<string | null>(null);

  const read = (query: { offset: number } | { page_of: string }) =>
    call(loci.GET('/v1/documents/{documentId}/chunks', { params: { path: { documentId }, query: { limit: PAGE, ...query } } }));
  const show = (offset: number) =>
    read({ offset })
      .then((r) => (setPage({ offset: r.offset, items: r.items }), setError(null)))
      .catch(setError);

  useEffect(() => {
    let gone = false;
    setCitedMissing(false);
    const first = async (): Promise<Page> => {
      if (cited) {
        try {
          return await read({ page_of: cited });
        } catch (err) {
          // A passage no longer there (the document was deleted and sent again): its first page.
          if (!(err instanceof ApiError && err.status === 404)) throw err;
          if (!gone) setCitedMissing(true);
        }
      }
      return read({ offset: 0 });
    };
    first()
      .then((p) => !gone && (setPage({ offset: p.offset, items: p.items }), setError(null)))
      .catch((err) => !gone && setError(err));
    return () => {
      gone = true;
    };
  }, [documentId, cited]);

  const seenVersion = useRef(version);
  useEffect(() => {
    if (seenVersion.current === version || !page) return;
    seenVersion.current = version;
    void show(page.offset);
  }, [version]);

  useEffect(() => {
    const card = citedCard.current;
    if (!cited || scrolledTo.current === cited || !card) return;
    scrolledTo.current = cited;
    card.scrollIntoView({ block: 'start' });
    card.focus({ preventScroll: true });
  }, [page, cited]);

  const shown = page?.items.length ?? 0;
  return (
    <Section title="Passages" data-testid="passages">
      <Stack gap="sm" mt="sm">
        <ErrorNote error={error} />
        {citedMissing && (
          <Text size="sm" c="orange" role="status">
            The cited passage is no longer in this document.
          </Text>
        )}
        {page && shown === 0 && <Text size="sm">No passage yet.</Text>}
        {page?.items.map((c) => {
          const isCited = c.chunk_id === cited;
          return (
            <Card
              key={c.chunk_id}
              withBorder
              component="article"
              aria-labelledby={`passage-${c.chunk_id}`}
              ref={isCited ? citedCard : undefined}
              tabIndex={isCited ? -1 : undefined}
              data-testid="passage"
              data-cited={isCited ? 'true' : undefined}
              p="sm"
              // Scrolled to below the fixed header, not under it.
              style={isCited ? { borderColor: 'var(--mantine-color-yellow-6)', borderWidth: 2, scrollMarginTop: 'calc(var(--app-shell-header-height, 56px) + 12px)' } : undefined}
            >
              <Group justify="space-between" gap="xs" mb={4}>
                <Group gap="xs">
                  <Title order={4} size="h6" id={`passage-${c.chunk_id}`}>
                    Passage {c.index + 1}
                  </Title>
                  {isCited && (
                    <Badge color="yellow" variant="filled" size="sm">
                      Cited in the answer
                    </Badge>
                  )}
                </Group>
                <Text size="xs" c="dimmed">
                  {c.token_count} tokens
                </Text>
              </Group>
              <Text size="sm" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }} data-testid="passage-text">
                {isCited ? <Mark color="yellow">{c.text}</Mark> : c.text}
              </Text>
              <TakenFromPassage documentId={documentId} chunkId={c.chunk_id} openAtFirst={isCited} />
            </Card>
          );
        })}
        {page && (total > PAGE || page.offset > 0) && (
          <Group justify="space-between" wrap="wrap">
            <Text size="sm" c="dimmed">
              Passages {shown ? page.offset + 1 : 0}–{page.offset + shown} of {total}
            </Text>
            <Group gap="xs">
              <Button variant="default" size="xs" disabled={page.offset === 0} onClick={() => void show(Math.max(0, page.offset - PAGE))}>
                Previous passages
              </Button>
              <Button variant="default" size="xs" disabled={page.offset + shown >= total} onClick={() => void show(page.offset + PAGE)}>
                Next passages
              </Button>
            </Group>
          </Group>
        )}
      </Stack>
    </Section>
  );
}

/** The facts one passage gave, behind a button (open at first for the cited passage). */
function TakenFromPassage({ documentId, chunkId, openAtFirst }: { documentId: string; chunkId: string; openAtFirst: boolean }) {
  const [open, setOpen] = useState(openAtFirst);
  const [facts, setFacts] = useState<Fact[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    if (!open || facts) return;
    call(loci.GET('/v1/documents/{documentId}/facts', { params: { path: { documentId }, query: { chunk_id: chunkId, limit: 200 } } }))
      .then((r) => setFacts(r.items as Fact[]))
      .catch(setError);
  }, [open]);
  return (
    <Stack gap={4} mt="xs">
      <Group>
        <Button size="compact-xs" variant="subtle" aria-expanded={open} onClick={() => setOpen(!open)}>
          {open ? 'Hide the facts taken from it' : 'Facts taken from it'}
        </Button>
      </Group>
      {open && <ErrorNote error={error} />}
      {open && facts && (facts.length === 0 ? <Text size="xs" c="dimmed">No fact was taken from this passage.</Text> : <FactList facts={facts} testId="passage-fact" />)}
    </Stack>
  );
}
