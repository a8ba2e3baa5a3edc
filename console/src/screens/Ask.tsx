import { Alert, Anchor, Badge, Button, Card, Group, List, Loader, SegmentedControl, Stack, Switch, Text, Textarea, TextInput, Title } from '@mantine/core';
import { FormEvent, useRef, useState } from 'react';
import { ContextSections } from '../ask/ContextSections';
import { PartialAnswer, Phase, useStreamedAnswer } from '../ask/useStreamedAnswer';
import { hrefOf } from '../document/address';
import { ErrorNote } from '../ui';

const MODES = ['mix', 'hybrid', 'local', 'global', 'naive'];

/** What to do when nothing answered, by `metadata.no_answer_reason` (the answer itself is one fixed sentence). */
const NO_ANSWER_HINTS: Record<string, string> = {
  empty_graph: 'Nothing uploaded yet: upload a document, then ask again.',
  empty_at_known_at: 'Nothing had been recorded yet by that instant.',
  no_relevant_context: 'Nothing in your documents matches this question: ask in other words, or upload what it is about.',
};

/**
 * A question to /v1/query, answered as the model writes it (a stream, with a Stop button) with
 * the sources it cites, or (context only) what retrieval found.
 */
export function AskScreen({ onUpload }: { onUpload: () => void }) {
  const [query, setQuery] = useState('');
  const [mode, setMode] = useState('mix');
  const [contextOnly, setContextOnly] = useState(false);
  // Local date-times from the inputs ('' = not asked): as_of is valid time, known_at record time.
  const [asOf, setAsOf] = useState('');
  const [knownAt, setKnownAt] = useState('');
  const { phase, answer, error, ask, stop, busy } = useStreamedAnswer();
  // What the question running or shown asked for (the switch may have moved since).
  const [askedContext, setAskedContext] = useState(false);
  const askButton = useRef<HTMLButtonElement>(null);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const instants = {
      ...(asOf ? { as_of: new Date(asOf).toISOString() } : {}),
      ...(knownAt ? { known_at: new Date(knownAt).toISOString() } : {}),
    };
    setAskedContext(contextOnly);
    void ask({ query, mode: mode as 'mix', include_sources: true, context_only: contextOnly, ...instants });
  };
  const stopAnswer = () => {
    stop();
    // The Stop button goes away with the question: the keyboard carries on from Ask.
    askButton.current?.focus();
  };

  const noAnswer = answer?.metadata?.no_answer_reason;
  return (
    <Stack>
      <Title order={2}>Ask a question</Title>
      <form onSubmit={submit} aria-label="Ask">
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
            {/* Not disabled while an answer is written: asking again replaces it. */}
            <Button type="submit" ref={askButton}>
              Ask
            </Button>
            {busy && (
              <Button variant="default" onClick={stopAnswer} leftSection={<Loader size={14} aria-hidden />}>
                Stop
              </Button>
            )}
          </Group>
        </Stack>
      </form>
      {/* Said once a phase begins or ends, never a piece at a time (the answer's text is not live). */}
      <Text size="sm" c="dimmed" role="status" data-testid="answer-status">
        {statusOf(phase, answer, askedContext)}
      </Text>
      <ErrorNote error={error} />
      {noAnswer && (
        <Alert color="yellow" title="No answer yet" data-testid="no-answer-hint">
          <Stack gap="xs" align="flex-start">
            <Text size="sm">{NO_ANSWER_HINTS[noAnswer] ?? 'Nothing to answer from.'}</Text>
            {noAnswer === 'empty_graph' && (
              <Button size="xs" variant="light" onClick={onUpload}>
                Upload a document
              </Button>
            )}
          </Stack>
        </Alert>
      )}
      {answer && (
        <Card withBorder data-testid="answer" data-state={phase} aria-busy={busy}>
          <Stack>
            {!askedContext && (
              <div>
                <Text component="span" data-testid="answer-text" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
                  {answer.text || (phase === 'done' ? noAnswer || 'No answer.' : '')}
                </Text>
                {busy && <Loader type="dots" size="xs" ml={6} aria-hidden />}
              </div>
            )}
            {(phase === 'stopped' || phase === 'failed') && (
              <Group gap="xs" wrap="wrap" data-testid="answer-incomplete">
                <Badge color={phase === 'stopped' ? 'gray' : 'red'} variant="light">
                  {phase === 'stopped' ? 'Stopped' : 'Incomplete'}
                </Badge>
                <Text size="xs" c="dimmed">
                  {phase === 'stopped' ? 'You stopped the answer here: it is incomplete.' : 'The answer broke off here: it is incomplete.'}
                </Text>
              </Group>
            )}
            {answer.metadata && (
              <Text size="xs" c="dimmed">
                {answer.metadata.mode} · {answer.metadata.model}
              </Text>
            )}
            {!askedContext && <Sources answer={answer} phase={phase} />}
            {answer.context && <ContextSections context={answer.context} />}
          </Stack>
        </Card>
      )}
    </Stack>
  );
}

/** What a screen reader hears as the question moves on (and what the line under the form says). */
function statusOf(phase: Phase, answer: PartialAnswer | null, contextOnly: boolean): string {
  const n = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;
  switch (phase) {
    case 'idle':
      return '';
    case 'retrieving':
      return 'Looking through your documents…';
    case 'writing':
      if (contextOnly) return 'Gathering what retrieval found…';
      return answer?.sources.length ? `Writing the answer from ${n(answer.sources.length, 'passage')}…` : 'Writing the answer…';
    case 'done': {
      if (answer?.context) return `Found ${n(answer.context.chunks.length, 'passage')}, ${n(answer.context.entities.length, 'entity', 'entities')} and ${n(answer.context.relations.length, 'relation')}.`;
      if (answer?.metadata?.no_answer_reason) return 'No answer: see why below.';
      return `Answered, citing ${n(answer?.sources.length ?? 0, 'source')}.`;
    }
    case 'stopped':
      return answer?.text ? 'Stopped. What was written so far is kept, incomplete.' : 'Stopped before the answer began.';
    case 'failed':
      return answer?.text ? 'The answer broke off; what was written so far is kept.' : '';
  }
}

/**
 * The sources: while the model writes (or when it was stopped), every passage it was given; once
 * the answer is complete, those it cites. Each opens the passage, highlighted on its document's page.
 */
function Sources({ answer, phase }: { answer: PartialAnswer; phase: Phase }) {
  const complete = phase === 'done';
  return (
    <>
      <Title order={3} size="h5">
        Sources
      </Title>
      {!complete && answer.sources.length > 0 && (
        <Text size="xs" c="dimmed">
          {phase === 'writing' ? 'The passages given to the model; those the answer cites remain when it is complete.' : 'The passages given to the model (the answer is incomplete: which it cites is not known).'}
        </Text>
      )}
      {answer.sources.length === 0 ? (
        <Text size="sm">No sources.</Text>
      ) : (
        <List>
          {answer.sources.map((s, i) => (
            <List.Item key={`${s.document_id}-${s.chunk_id}-${i}`}>
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
    </>
  );
}
