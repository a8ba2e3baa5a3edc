import { Badge, Button, Card, FileButton, Group, Progress, Stack, Text, Title } from '@mantine/core';
import { DragEvent, useEffect, useRef, useState } from 'react';
import { ApiError, call, DocumentItem, loci, uploadFile } from '../api';

interface Row {
  key: string;
  file: File;
  sent: number;
  documentId: string | null;
  doc: DocumentItem | null;
  error: string | null;
}

const done = (r: Row) => r.error !== null || r.doc?.status === 'processed' || r.doc?.status === 'failed';

/** Drop or pick files; each shows its upload, then its ingestion, until processed or failed. */
export function UploadScreen() {
  const [rows, setRows] = useState<Row[]>([]);
  const [over, setOver] = useState(false);
  const rowsRef = useRef(rows);
  rowsRef.current = rows;
  const update = (key: string, change: Partial<Row>) => setRows((all) => all.map((r) => (r.key === key ? { ...r, ...change } : r)));

  const send = (row: Row) => {
    update(row.key, { sent: 0, error: null, doc: null, documentId: null });
    uploadFile(row.file, (sent) => update(row.key, { sent }))
      .then((res) => update(row.key, { sent: 1, documentId: res.document_id }))
      .catch((err: ApiError) => update(row.key, { error: err.message }));
  };
  const add = (files: File[]) => {
    const added = files.map((file) => ({ key: `${file.name}-${Date.now()}-${Math.random()}`, file, sent: 0, documentId: null, doc: null, error: null }));
    setRows((all) => [...added, ...all]);
    added.forEach(send);
  };
  const retry = async (row: Row) => {
    if (!row.documentId) return send(row);
    try {
      await call(loci.POST('/v1/documents/{documentId}/retry', { params: { path: { documentId: row.documentId } } }));
      update(row.key, { doc: null, error: null });
    } catch (err) {
      update(row.key, { error: (err as Error).message });
    }
  };

  // Follows every document still being ingested, once a second.
  useEffect(() => {
    const timer = setInterval(() => {
      for (const row of rowsRef.current) {
        if (!row.documentId || done(row)) continue;
        call(loci.GET('/v1/documents/{documentId}', { params: { path: { documentId: row.documentId } } }))
          .then((doc) => update(row.key, { doc }))
          .catch((err: Error) => update(row.key, { error: err.message }));
      }
    }, 1000);
    return () => clearInterval(timer);
  }, []);

  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setOver(false);
    add([...e.dataTransfer.files]);
  };

  return (
    <Stack>
      <Title order={2}>Upload documents</Title>
      <Card
        withBorder
        p="xl"
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={onDrop}
        data-testid="drop-zone"
        style={{ borderStyle: 'dashed', background: over ? 'var(--mantine-color-blue-light)' : undefined }}
      >
        <Stack align="center">
          <Text>Drop .txt, .md, .html or .pdf files here, or</Text>
          <FileButton onChange={(files) => add(files)} multiple accept=".txt,.md,.html,.htm,.pdf,text/plain,text/markdown,text/html,application/pdf">
            {(props) => <Button {...props}>Choose files</Button>}
          </FileButton>
        </Stack>
      </Card>
      {rows.map((row) => {
        const status = row.error ? 'failed' : (row.doc?.status ?? (row.documentId ? 'pending' : 'uploading'));
        const total = row.doc?.progress.chunks_total ?? 0;
        const ingest = total > 0 ? (row.doc!.progress.chunks_done / total) * 100 : 0;
        const value = status === 'processed' ? 100 : row.documentId ? 50 + ingest / 2 : row.sent * 50;
        return (
          <Card key={row.key} withBorder data-testid="upload-row">
            <Group justify="space-between" wrap="nowrap">
              <Text fw={500} truncate>
                {row.file.name}
              </Text>
              <Badge color={status === 'processed' ? 'green' : status === 'failed' ? 'red' : 'blue'} data-testid="upload-status">
                {status}
              </Badge>
            </Group>
            <Progress value={value} mt="xs" aria-label={`${row.file.name}: ${status}`} animated={!done(row)} />
            {(row.error ?? row.doc?.error) && (
              <Group mt="xs" justify="space-between">
                <Text c="red" size="sm" role="alert">
                  {row.error ?? row.doc?.error}
                </Text>
                <Button size="xs" variant="light" onClick={() => void retry(row)}>
                  Retry
                </Button>
              </Group>
            )}
            {status === 'processed' && row.doc && (
              <Text size="sm" c="dimmed" mt="xs">
                {row.doc.counts.chunks} passages, {row.doc.counts.entities} entities, {row.doc.counts.edges} facts
              </Text>
            )}
          </Card>
        );
      })}
    </Stack>
  );
}
