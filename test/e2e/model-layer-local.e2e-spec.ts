import { InferencesRepository } from '@loci/db';
import { CallContext, ModelGateway, StageRunner } from '@loci/llm';
import { createTenant } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';
import { randomUUID } from 'node:crypto';

/** With no provider key at all, the whole model layer runs offline on the local provider. */
describe('model layer on the embedded default (no keys)', () => {
  let t: TestApp;
  let runner: StageRunner;
  let gateway: ModelGateway;
  let ledger: InferencesRepository;
  let tenantId: string;

  beforeAll(async () => {
    t = await startTestApp({ ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined });
    runner = t.app.get(StageRunner);
    gateway = t.app.get(ModelGateway);
    ledger = t.app.get(InferencesRepository);
    tenantId = (await createTenant(t.app)).id;
  });
  afterAll(() => t.close());

  const context = () => new CallContext(tenantId, `req-${randomUUID()}`, 'ingest');

  it('extracts entities and facts offline, and records the call at cost 0', async () => {
    const ctx = context();
    const extraction = await runner.extract(ctx, 'Alice Johnson works at Acme Corporation in Berlin.');
    expect(extraction.entities.map((e) => [e.name, e.type])).toEqual(
      expect.arrayContaining([
        ['Alice Johnson', 'person'],
        ['Acme Corporation', 'organization'],
      ]),
    );
    expect(extraction.relations).toContainEqual(
      expect.objectContaining({ source: 'Alice Johnson', target: 'Acme Corporation', relation: 'works_at' }),
    );
    const [row] = await ledger.listByRequest(tenantId, ctx.requestId);
    expect(row).toMatchObject({ provider: 'local', model: 'local-nlp-v1', stage: 'extract', costMicros: 0, status: 'ok' });
    expect(row.tokensIn).toBeGreaterThan(0);
  });

  it('writes a local call to the ledger once, when it has ended, however it ended', async () => {
    // A local call cannot spend, so no pending row is written before it (one statement, not two).
    const ctx = context();
    const choice = gateway.router.choose('extract');
    const usage = { inputTokens: 7, outputTokens: 3, thinkingTokens: 0 };
    let rowsDuringCall: unknown[] | undefined;
    await gateway.local(ctx, 'extract', choice, async () => {
      rowsDuringCall = await ledger.listByRequest(tenantId, ctx.requestId);
      return { value: 'done', usage };
    });
    expect(rowsDuringCall).toEqual([]);
    await expect(
      gateway.local(ctx, 'summarize', choice, async () => {
        throw new Error('the local model broke');
      }),
    ).rejects.toThrow('the local model broke');
    const rows = await ledger.listByRequest(tenantId, ctx.requestId);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatchObject({ callIndex: 0, stage: 'extract', status: 'ok', tokensIn: 7, tokensOut: 3, costMicros: 0, error: null });
    expect(rows[1]).toMatchObject({ callIndex: 1, stage: 'summarize', status: 'error', tokensIn: 0, costMicros: 0, error: 'the local model broke' });
  });

  it('embeds offline and deterministically, at the store width', async () => {
    const first = await gateway.embed(context(), ['Where does Alice work?']);
    const second = await gateway.embed(context(), ['Where does Alice work?']);
    expect(first.choice.spec).toBe('local:local-hash-v1');
    expect(first.vectors[0]).toHaveLength(1024);
    expect(first.vectors[0]).toEqual(second.vectors[0]);
  });

  it('answers extractively, citing the sources it used', async () => {
    const ctx = context();
    const answer = await runner.answer(ctx, 'Where does Alice work?', [
      { id: 'c1', text: 'Alice works at Acme in Berlin. She joined in 2021.' },
      { id: 'c2', text: 'The weather in Paris was rainy all week.' },
    ]);
    expect(answer.cited).toEqual(['c1']);
    expect(answer.answer).toContain('Acme');
    // the answer and the embeddings it needed are each on record
    const stages = (await ledger.listByRequest(tenantId, ctx.requestId)).map((r) => r.stage);
    expect(stages).toContain('answer');
    expect(stages).toContain('embed');
  });

  it('summarizes and picks keywords offline', async () => {
    const summary = await runner.summarize(
      context(),
      'Acme Corporation is a robotics company. It was founded in Berlin in 2010. Alice Johnson leads its research team. The company sells warehouse robots.',
    );
    expect(summary.length).toBeGreaterThan(10);
    const keywords = await runner.keywords(context(), 'Where does Alice work?');
    expect(keywords.low_level.map((k) => k.toLowerCase())).toContain('alice');
  });
});

describe('boot with a model that has no price', () => {
  it('refuses to start, naming the model', async () => {
    await expect(startTestApp({ OPENAI_API_KEY: 'k', LOCI_ANSWER_MODEL: 'openai:no-such-model' })).rejects.toThrow(
      /no-such-model.*no known price/,
    );
  });
});
