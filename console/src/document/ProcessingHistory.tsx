import { Text, Timeline } from '@mantine/core';
import type { Schemas } from '@loci/client';
import { Section, when } from '../ui';

type Job = Schemas['DocumentJobList']['items'][number];
type Document = Schemas['Document'];

interface Step {
  title: string;
  at: string | null;
  lines: string[];
  color?: string;
}

const attempts = (job: Job) => `attempt ${job.attempts} of ${job.max_attempts}`;

/** What happened to the document, in order: its upload, then each ingestion job's course and end. */
export function historyOf(document: Document, jobs: Job[]): Step[] {
  const steps: Step[] = [{ title: 'Uploaded', at: document.created_at, lines: [document.mime_type] }];
  jobs.forEach((job, i) => {
    const queued = `${i === 0 ? 'queued' : 'queued again (retry)'} ${when(job.queued_at)}${job.background ? ', as background work (a bulk load)' : ''}`;
    const started = job.started_at ? `started ${when(job.started_at)}` : null;
    const lines = [queued, ...(started ? [started] : [])];
    switch (job.status) {
      case 'done':
        // A done job keeps the error of an attempt before the one that succeeded.
        steps.push({ title: `Ingested (${attempts(job)})`, at: job.updated_at, lines: [...lines, ...(job.last_error ? [`an earlier attempt failed: ${job.last_error}`] : [])], color: 'green' });
        break;
      case 'failed':
        steps.push({ title: `Failed (${attempts(job)})`, at: job.updated_at, lines: [...lines, job.last_error ?? 'no reason recorded'], color: 'red' });
        break;
      case 'deferred':
        steps.push({ title: 'Deferred', at: job.updated_at, lines: [...lines, job.last_error ?? ''], color: 'yellow' });
        break;
      case 'running':
        steps.push({ title: `Running (${attempts(job)})`, at: job.started_at, lines: [queued, `${document.progress.chunks_done} of ${document.progress.chunks_total} passages done`], color: 'blue' });
        break;
      case 'queued':
        steps.push(
          job.attempts === 0
            ? { title: 'Waiting for a worker', at: job.queued_at, lines: [queued], color: 'blue' }
            : { title: `Waiting to retry (after ${attempts(job)})`, at: job.run_at, lines: [queued, ...(job.last_error ? [`failed: ${job.last_error}`] : [])], color: 'yellow' },
        );
        break;
    }
  });
  return steps;
}

/** The document's processing history as a timeline. */
export function ProcessingHistory({ document, jobs }: { document: Document; jobs: Job[] | null }) {
  const steps = historyOf(document, jobs ?? []);
  return (
    <Section title="Processing" data-testid="processing-history">
      <Timeline active={steps.length - 1} bulletSize={14} lineWidth={2} mt="sm">
        {steps.map((step, i) => (
          <Timeline.Item key={i} title={step.title} color={step.color} data-testid="processing-step">
            <Text size="xs" c="dimmed">
              {when(step.at)}
            </Text>
            {step.lines.filter(Boolean).map((line, j) => (
              <Text key={j} size="xs" style={{ overflowWrap: 'anywhere' }}>
                {line}
              </Text>
            ))}
          </Timeline.Item>
        ))}
      </Timeline>
      {jobs && jobs.length === 0 && (
        <Text size="sm" c="dimmed">
          No ingestion job on record.
        </Text>
      )}
    </Section>
  );
}
