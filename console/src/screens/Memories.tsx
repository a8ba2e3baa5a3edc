import { Badge, Button, Group, List, Stack, Table, Text, Textarea, TextInput, Title, VisuallyHidden } from '@mantine/core';
import { FormEvent, useState } from 'react';
import { call, loci } from '../api';
import { ErrorNote, ScrollTable, Section, useAction, when } from '../ui';

/** One dataset of a gb user, as GET /v1/gb/datasets lists it. */
interface Dataset {
  name: string;
  created_at: string;
  last_remembered_at?: string;
  texts: number;
  chunks: number;
  entities: number;
  edges: number;
  live_edges: number;
}
interface Remembered {
  artifact_id: number;
  dataset: string;
  duplicate: boolean;
  entities: { id: number; name: string; change: string }[];
  edges: { id: number; relation: string; change: string }[];
}
interface GbAnswer {
  answer: string;
  evidence: {
    entities: { id: number; name: string; type?: string; description?: string }[];
    edges: { id: number; source: string; relation: string; target: string; valid_at?: string; invalid_at?: string }[];
    passages: { artifact_id: number; index: number; summary?: string; text?: string }[];
  };
}

const datasetsOf = (userId: string) => call(loci.GET('/v1/gb/datasets', { params: { query: { user_id: userId } } }));

/**
 * gb memory as agents keep it, per end user: a user's datasets with what they hold, a text
 * remembered into one, a question answered from one (with its evidence), a dataset deleted.
 * The gb routes have no list of users, so the screen starts from a user id.
 */
export function MemoriesScreen() {
  const [userId, setUserId] = useState('');
  const [shown, setShown] = useState<string | null>(null);
  const [datasets, setDatasets] = useState<Dataset[] | null>(null);
  const [dataset, setDataset] = useState('main');
  const listing = useAction();

  const load = (user: string) => listing.run(async () => setDatasets((await datasetsOf(user)).datasets));
  const open = async (e: FormEvent) => {
    e.preventDefault();
    if (await load(userId.trim())) setShown(userId.trim());
  };
  const remove = (name: string) =>
    confirm(`Delete the dataset ${name} of ${shown} with everything it remembers?`) &&
    listing.run(async () => {
      await call(loci.DELETE('/v1/gb/datasets/{name}', { params: { path: { name }, query: { user_id: shown! } } }));
      setDatasets((await datasetsOf(shown!)).datasets);
    });

  return (
    <Stack>
      <Title order={2}>Memories</Title>
      <form onSubmit={(e) => void open(e)} aria-label="Open a user's memory">
        <Group align="end">
          <TextInput label="User id" description="The end user whose memory (gb datasets) to open" required value={userId} onChange={(e) => setUserId(e.currentTarget.value)} />
          <Button type="submit" loading={listing.busy}>
            Open
          </Button>
        </Group>
      </form>
      <ErrorNote error={listing.error} />
      {shown && datasets && (
        <>
          <Section title={`Datasets of ${shown}`} data-testid="datasets">
            {datasets.length === 0 ? (
              <Text size="sm" mt="xs">
                No dataset yet: remember a text below to create one.
              </Text>
            ) : (
              <ScrollTable minWidth={560} label="Datasets">
                <Table>
                  <Table.Thead>
                    <Table.Tr>
                      <Table.Th>Dataset</Table.Th>
                      <Table.Th>Texts</Table.Th>
                      <Table.Th>Entities</Table.Th>
                      <Table.Th>Facts (live / all)</Table.Th>
                      <Table.Th>Last remembered</Table.Th>
                      <Table.Th>
                        <VisuallyHidden>Actions</VisuallyHidden>
                      </Table.Th>
                    </Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    {datasets.map((d) => (
                      <Table.Tr key={d.name} data-testid="dataset-row">
                        <Table.Td>
                          <Button size="compact-sm" variant={d.name === dataset ? 'filled' : 'subtle'} onClick={() => setDataset(d.name)} aria-pressed={d.name === dataset}>
                            {d.name}
                          </Button>
                        </Table.Td>
                        <Table.Td>{d.texts}</Table.Td>
                        <Table.Td>{d.entities}</Table.Td>
                        <Table.Td>
                          {d.live_edges} / {d.edges}
                        </Table.Td>
                        <Table.Td>{when(d.last_remembered_at ?? null)}</Table.Td>
                        <Table.Td>
                          <Button size="xs" variant="subtle" color="red" onClick={() => void remove(d.name)} aria-label={`Delete dataset ${d.name}`}>
                            Delete
                          </Button>
                        </Table.Td>
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
              </ScrollTable>
            )}
          </Section>
          <TextInput label="Dataset" description="Letters, digits, . _ - (a new name creates it)" value={dataset} onChange={(e) => setDataset(e.currentTarget.value)} maw={360} />
          <Remember userId={shown} dataset={dataset} onRemembered={() => void load(shown)} />
          <AskMemory userId={shown} dataset={dataset} />
        </>
      )}
    </Stack>
  );
}

function Remember({ userId, dataset, onRemembered }: { userId: string; dataset: string; onRemembered: () => void }) {
  const [text, setText] = useState('');
  const [result, setResult] = useState<Remembered | null>(null);
  const action = useAction();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setResult(null);
    const ok = await action.run(async () => setResult(await call(loci.POST('/v1/gb/remember', { body: { user_id: userId, dataset, text } }))));
    if (ok) {
      setText('');
      onRemembered();
    }
  };
  return (
    <Section title="Remember">
      <form onSubmit={(e) => void submit(e)} aria-label="Remember a text">
        <Stack my="sm">
          <Textarea label="Text to remember" required autosize minRows={2} value={text} onChange={(e) => setText(e.currentTarget.value)} />
          <Group>
            <Button type="submit" loading={action.busy}>
              Remember
            </Button>
          </Group>
        </Stack>
      </form>
      <ErrorNote error={action.error} />
      {result && (
        <Text size="sm" role="status" data-testid="remembered">
          {result.duplicate
            ? `Already remembered in ${result.dataset}: nothing written.`
            : `Remembered in ${result.dataset}: ${result.entities.length} entities (${result.entities.map((en) => `${en.name} ${en.change}`).join(', ')}), ${result.edges.length} facts.`}
        </Text>
      )}
    </Section>
  );
}

function AskMemory({ userId, dataset }: { userId: string; dataset: string }) {
  const [query, setQuery] = useState('');
  const [answer, setAnswer] = useState<GbAnswer | null>(null);
  const action = useAction();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setAnswer(null);
    void action.run(async () => setAnswer(await call(loci.POST('/v1/gb/query', { body: { user_id: userId, dataset, query } }))));
  };
  const ev = answer?.evidence;
  return (
    <Section title="Ask this memory">
      <form onSubmit={submit} aria-label="Ask a memory">
        <Stack my="sm">
          <Textarea label="Question to the memory" required autosize minRows={1} value={query} onChange={(e) => setQuery(e.currentTarget.value)} />
          <Group>
            <Button type="submit" loading={action.busy}>
              Ask memory
            </Button>
          </Group>
        </Stack>
      </form>
      <ErrorNote error={action.error} />
      {answer && ev && (
        <Stack gap="xs" data-testid="memory-answer">
          <Text style={{ whiteSpace: 'pre-wrap' }}>{answer.answer}</Text>
          <Title order={4} size="h5">
            Evidence
          </Title>
          {ev.entities.length + ev.edges.length + ev.passages.length === 0 && <Text size="sm">None.</Text>}
          {ev.edges.length > 0 && (
            <List size="sm">
              {ev.edges.map((edge) => (
                <List.Item key={edge.id} data-testid="memory-fact">
                  {edge.source} <Badge size="xs" variant="light">{edge.relation}</Badge> {edge.target}
                  {edge.invalid_at ? ` (until ${when(edge.invalid_at)})` : edge.valid_at ? ` (since ${when(edge.valid_at)})` : ''}
                </List.Item>
              ))}
            </List>
          )}
          {ev.entities.length > 0 && <Text size="sm">Entities: {ev.entities.map((en) => en.name).join(', ')}</Text>}
          {ev.passages.map((p) => (
            <Text key={p.artifact_id} size="sm" c="dimmed" style={{ whiteSpace: 'pre-wrap' }}>
              Passage {p.index + 1}: {p.text ?? p.summary}
            </Text>
          ))}
        </Stack>
      )}
    </Section>
  );
}
