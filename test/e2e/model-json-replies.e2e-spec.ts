import { CallContext, StageRunner } from '@loci/llm';
import { createTenant, LlmDouble, startLlmDouble } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';
import { randomUUID } from 'node:crypto';

/**
 * What the model stages make of real providers' JSON replies: the real SDKs against the
 * loopback double, the real store for the ledger.
 */
describe('model JSON replies', () => {
  let double: LlmDouble;
  let t: TestApp;
  let runner: StageRunner;
  let tenantId: string;

  beforeAll(async () => {
    double = await startLlmDouble();
    t = await startTestApp({
      ANTHROPIC_API_KEY: 'platform-anthropic-key',
      ANTHROPIC_BASE_URL: double.anthropicBaseUrl,
      OPENAI_API_KEY: 'platform-openai-key',
      OPENAI_BASE_URL: double.openaiBaseUrl,
      LOCI_LLM_MAX_RETRIES: '0',
    });
    runner = t.app.get(StageRunner);
    tenantId = (await createTenant(t.app)).id;
  });
  afterAll(async () => {
    await t.close();
    await double.close();
  });
  beforeEach(() => double.reset());

  const context = () => new CallContext(tenantId, `req-${randomUUID()}`, 'ingest');
  const text = 'Alice Martin works at Acme Corporation.';
  // The prompt lists "keywords" among the relation's fields without saying it is a list: models
  // answer a single keyword as a string.
  const nearMiss = {
    entities: [
      { name: 'Alice Martin', type: 'person', description: null },
      { name: 'Acme Corporation', type: 'organization' },
    ],
    relations: [{ source: 'Alice Martin', target: 'Acme Corporation', relation: 'works_at', keywords: 'employment; job' }],
  };
  const expected = {
    entities: [
      { name: 'Alice Martin', type: 'person', description: '' },
      { name: 'Acme Corporation', type: 'organization', description: '' },
    ],
    relations: [
      {
        source: 'Alice Martin',
        target: 'Acme Corporation',
        relation: 'works_at',
        description: '',
        keywords: ['employment', 'job'],
        valid_at: null,
        invalid_at: null,
      },
    ],
  };

  it('extracts from an Anthropic reply whose keywords are a string, in one call', async () => {
    double.anthropic.reply({ text: JSON.stringify(nearMiss) });
    await expect(runner.extract(context(), text)).resolves.toEqual(expected);
    expect(double.anthropic.requests).toHaveLength(1);
  });

  it('extracts from an OpenAI reply whose keywords are a string, in one call', async () => {
    double.openai.chat.reply({ text: JSON.stringify(nearMiss) });
    await expect(runner.extract(context(), text, { model: 'openai:gpt-4.1-mini' })).resolves.toEqual(expected);
    expect(double.openai.chat.requests).toHaveLength(1);
  });

  it('still fails after the repair on a reply that is not the shape at all', async () => {
    double.anthropic.reply({ text: JSON.stringify({ entities: 'Alice Martin', relations: { works_at: 'Acme' } }) });
    await expect(runner.extract(context(), text)).rejects.toMatchObject({ failure: 'bad_output' });
    expect(double.anthropic.requests).toHaveLength(2);
  });

  describe('structured output', () => {
    it('forces Anthropic to call a tool whose input schema is the stage reply, and reads its input', async () => {
      double.anthropic.reply({ toolInput: nearMiss });
      await expect(runner.extract(context(), text)).resolves.toEqual(expected);
      const { body } = double.anthropic.requests[0];
      expect(body.tool_choice).toEqual({ type: 'tool', name: 'extract_reply' });
      expect(body.tools).toHaveLength(1);
      expect(body.tools[0]).toMatchObject({ name: 'extract_reply', input_schema: { type: 'object', required: ['entities'] } });
      expect(body.tools[0].input_schema.properties.relations.items.properties.keywords).toMatchObject({ type: 'array', items: { type: 'string' } });
    });

    it('offers the tool without forcing it when thinking is on (the API refuses forced tools then), and reads a text reply', async () => {
      double.anthropic.reply((body) => (body.tool_choice?.type === 'auto' ? { text: JSON.stringify(nearMiss) } : { status: 400 }));
      await expect(runner.extract(context(), text, { reasoning: 'low' })).resolves.toEqual(expected);
      expect(double.anthropic.requests[0].body).toMatchObject({ tool_choice: { type: 'auto' }, thinking: { type: 'enabled' } });
    });

    it('asks OpenAI for a json_schema response format of the stage reply', async () => {
      double.openai.chat.reply({ text: JSON.stringify(nearMiss) });
      await expect(runner.extract(context(), text, { model: 'openai:gpt-4.1-mini' })).resolves.toEqual(expected);
      const format = double.openai.chat.requests[0].body.response_format;
      expect(format).toMatchObject({ type: 'json_schema', json_schema: { name: 'extract_reply', strict: false } });
      expect(format.json_schema.schema).toMatchObject({ type: 'object', required: ['entities'] });
    });

    it('falls back to a json_object response format when the endpoint refuses json_schema, and remembers it', async () => {
      double.openai.chat.reply({ text: JSON.stringify(nearMiss), refuseJsonSchema: true });
      const model = 'openai:deepseek/deepseek-chat';
      await expect(runner.extract(context(), text, { model })).resolves.toEqual(expected);
      expect(double.openai.chat.requests.map((r) => r.body.response_format.type)).toEqual(['json_schema', 'json_object']);
      await expect(runner.extract(context(), text, { model })).resolves.toEqual(expected);
      expect(double.openai.chat.requests.map((r) => r.body.response_format.type)).toEqual(['json_schema', 'json_object', 'json_object']);
    });

    it('does not take other 400s for a refused response format', async () => {
      double.openai.chat.reply({ status: 400 });
      await expect(runner.extract(context(), text, { model: 'openai:gpt-4o-mini' })).rejects.toMatchObject({ failure: 'rejected' });
      expect(double.openai.chat.requests).toHaveLength(1);
    });
  });
});
