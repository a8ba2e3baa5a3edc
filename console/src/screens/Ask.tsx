import { Alert, Anchor, Badge, Button, Card, Group, List, SegmentedControl, Stack, Switch, Table, Text, Textarea, TextInput, Title } from '@mantine/core';
import { FormEvent, useState } from 'react';
import { call, loci } from '../api';
import { hrefOf } from '../document/address';
import { ErrorNote } from '../ui';

interface Source {
  document_id: string;
  chunk_id: string | null;
  excerpt: string | null;
  reference_id: string | null;
  document_name: string | null;
  freshness: string | null;
}
interface Answer {
  answer: string;
  sources: Source[];
  metadata: { mode: string; model: string; no_answer_reason: string | null };
  /** Filled in context-only mode (the answer is then empty); null or absent otherwise. */
  context?: {
    chunks: { text: string; document_id: string; document_name: string | null; chunk_id: string | null }[];
    entities: { name: string; type: string | null; description: string | null }[];
    relations: { source: string; target: string; description: string | null }[];
  } | null;
}

const MODES = ['mix', 'hybrid', 'local', 'global', 'naive'];

/** What to do when nothing answered, by `metadata.no_answer_reason` (the answer itself is one fixed sentence). */
const NO_ANSWER_HINTS: Record<string, string> = {
  empty_graph: 'Nothing uploaded yet: upload a document, then ask again.',
  empty_at_known_at: 'Nothing had been recorded yet by that instant.',
  no_relevant_context: 'Nothing in your documents matches this question: ask in other words, or upload what it is about.',
};

/** A question to /v1/query: an answer with cited sources, or (context only) what retrieval found. */
export function AskScreen({ onUpload }: { onUpload: () => void }) {
  const [query, setQuery] = useState('');
  const [mode, setMode] = useState('mix');
  const [contextOnly, setContextOnly] = useState(false);
  // Local date-times from the inputs ('' = not asked): as_of is valid time, known_at record time.
  const [asOf, setAsOf] = useState('');
  const [knownAt, setKnownAt] = useState('');
  const [answer, setAnswer] = useState<Answer | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const ask = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const instants = {
        ...(asOf ? { as_of: new Date(asOf).toISOString() } : {}),
        ...(knownAt ? { known_at: new Date(knownAt).toISOString() } : {}),
      };
      setAnswer(await call(loci.POST('/v1/query', { body: { query, mode: mode as 'mix', include_sources: true, context_only: contextOnly, ...instants } })));
    } catch (err) {
      setError(err);
      setAnswer(null);
    } finally {
      setBusy(false);
    }
  };

  const context = answer?.context;
  return (
    <Stack>
      <Title order={2}>Ask a question</Title>
      <form onSubmit={(e) => void ask(e)} aria-label="Ask">
        <Stack>
          <Textarea label="Question" required autosize minRows={2} value={query} onChange={(e) => setQuery(e.currentTarget.value)} />
          <Group>
            <div>
              <Text size="sm" fw={500} id="mode-label">
                Mode
              </Text>
              <SegmentedControl aria-labelledby="mode-label" data={MODES} value={mode} onChange={setMode} />
            </div>
            <Switch label="Context only (what retrieval found, no written answer)" checked={contextOnly} onChange={(e) => setContextOnly(e.currentTarget.checked)} />
          </Group>
          <Group>
            <TextInput
              type="datetime-local"
              label="As of"
              description="What was true at this instant, by all Loci knows now"
              value={asOf}
              onChange={(e) => setAsOf(e.currentTarget.value)}
            />
            <TextInput
              type="datetime-local"
              label="Known at"
              description="Only what had been recorded by this instant"
              value={knownAt}
              onChange={(e) => setKnownAt(e.currentTarget.value)}
            />
          </Group>
          <Group>
            <Button type="submit" loading={busy}>
              Ask
            </Button>
          </Group>
        </Stack>
      </form>
      <ErrorNote error={error} />
      {answer?.metadata.no_answer_reason && (
        <Alert color="yellow" title="No answer yet" data-testid="no-answer-hint">
          <Stack gap="xs" align="flex-start">
            <Text size="sm">{NO_ANSWER_HINTS[answer.metadata.no_answer_reason] ?? 'Nothing to answer from.'}</Text>
            {answer.metadata.no_answer_reason === 'empty_graph' && (
              <Button size="xs" variant="light" onClick={onUpload}>
                Upload a document
              </Button>
            )}
          </Stack>
        </Alert>
      )}
      {answer && (
        <Card withBorder data-testid="answer">
          <Stack>
            {!context && <Text style={{ whiteSpace: 'pre-wrap' }}>{answer.answer || answer.metadata.no_answer_reason || 'No answer.'}</Text>}
            <Text size="xs" c="dimmed">
              {answer.metadata.mode} · {answer.metadata.model}
            </Text>
            <Title order={3} size="h5">
              Sources
            </Title>
            {answer.sources.length === 0 ? (
              <Text size="sm">No sources.</Text>
            ) : (
              <List>
                {answer.sources.map((s, i) => (
                  <List.Item key={`${s.document_id}-${s.chunk_id}-${i}`}>
                    {/* The passage it cites, highlighted on its document's page. */}
                    <Anchor href={hrefOf({ documentId: s.document_id, chunkId: s.chunk_id })} data-testid="source">
                      [{s.reference_id ?? i + 1}] {s.document_name ?? `document ${s.document_id}`}
                    </Anchor>{' '}
                    {s.freshness && <Badge size="xs" variant="light">{s.freshness}</Badge>}
                    {s.excerpt && (
                      <Text size="xs" c="dimmed" lineClamp={2} style={{ overflowWrap: 'anywhere' }}>
                        {s.excerpt}
                      </Text>
                    )}
                  </List.Item>
                ))}
              </List>
            )}
            {context && (
              <Stack gap="xs" data-testid="context">
                <Title order={3} size="h5">
                  Context
                </Title>
                <Text size="sm">
                  {context.chunks.length} passages, {context.entities.length} entities, {context.relations.length} relations
                </Text>
                <Table.ScrollContainer minWidth={300}>
                  <Table>
                    <Table.Thead>
                      <Table.Tr>
                        <Table.Th>Entity</Table.Th>
                        <Table.Th>Description</Table.Th>
                      </Table.Tr>
                    </Table.Thead>
                    <Table.Tbody>
                      {context.entities.slice(0, 20).map((en) => (
                        <Table.Tr key={en.name}>
                          <Table.Td>{en.name}</Table.Td>
                          <Table.Td>{en.description}</Table.Td>
                        </Table.Tr>
                      ))}
                    </Table.Tbody>
                  </Table>
                </Table.ScrollContainer>
                {context.chunks.slice(0, 10).map((c, i) => (
                  <Card key={c.chunk_id ?? i} withBorder p="xs">
                    <Anchor size="xs" href={hrefOf({ documentId: c.document_id, chunkId: c.chunk_id })}>
                      {c.document_name ?? `document ${c.document_id}`}
                    </Anchor>
                    <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
                      {c.text}
                    </Text>
                  </Card>
                ))}
                {context.relations.length > 0 && (
                  <List size="sm">
                    {context.relations.slice(0, 20).map((r, i) => (
                      <List.Item key={i}>
                        {r.source} → {r.target}
                        {r.description ? `: ${r.description}` : ''}
                      </List.Item>
                    ))}
                  </List>
                )}
              </Stack>
            )}
          </Stack>
        </Card>
      )}
    </Stack>
  );
}
