import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
// By path, not through @loci/testing: the build leaves libs/testing out (jest and supertest
// helpers), and this import compiles just the double and its wire formats into dist.
import { LlmDouble, ReceivedRequest, startLlmDouble } from '../../libs/testing/src/llm-double';

/**
 * The model stages of a scenario answered by the loopback LLM double (the one the e2e tests
 * use, speaking the Anthropic Messages wire format to the real SDK), so that what is measured
 * is Loci's own cost plus a chosen model latency. The double runs in the bench process.
 */

/** The model the double plays: a real Anthropic name, so the router and SDK take their usual path. */
export const DOUBLE_MODEL = 'anthropic:claude-haiku-4-5';

export interface ModelDouble {
  double: LlmDouble;
  /** Settings that point the platform's Anthropic provider at the double. */
  env: Record<string, string>;
  /** Requests answered (a count; the double's own request log is cleared as it goes). */
  answered(): number;
  close(): Promise<void>;
}

/**
 * Starts the double; `reply` computes each Messages reply's text from the request; every reply
 * waits `delayMs` first (the model's latency). The double's model is priced at 0 (a prices file
 * written to `dataDir`): reservations and settlements still run, but the shared platform day
 * counter in Redis, and the ledger's money, stay where they were.
 */
export async function startModelDouble(dataDir: string, reply: (userText: string, request: ReceivedRequest) => string, delayMs = 0): Promise<ModelDouble> {
  const double = await startLlmDouble();
  let answered = 0;
  double.anthropic.reply((body, request) => {
    answered++;
    // A long run must not keep every request body in memory.
    double.anthropic.requests.length = 0;
    double.requests.length = 0;
    return { text: reply(lastUserText(body), request), ...(delayMs > 0 ? { delayMs } : {}) };
  });
  const pricesFile = join(dataDir, 'bench-prices.json');
  writeFileSync(pricesFile, JSON.stringify({ [DOUBLE_MODEL]: { input: 0, output: 0 } }));
  return {
    double,
    env: {
      ANTHROPIC_API_KEY: 'bench-double',
      ANTHROPIC_BASE_URL: double.anthropicBaseUrl,
      LOCI_PRICES_FILE: pricesFile,
      LOCI_LLM_MAX_RETRIES: '0',
    },
    answered: () => answered,
    close: () => double.close(),
  };
}

function lastUserText(body: { messages?: Array<{ role: string; content: unknown }> } | undefined): string {
  const user = [...(body?.messages ?? [])].reverse().find((m) => m.role === 'user');
  if (!user) return '';
  if (typeof user.content === 'string') return user.content;
  return Array.isArray(user.content) ? user.content.map((block: { text?: string }) => block.text ?? '').join('') : '';
}
