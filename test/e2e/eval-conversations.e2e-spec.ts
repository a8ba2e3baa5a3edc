import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConversationsReport, conversationSet } from '../../eval/src/conversations';
import { generateConversations } from '../../eval/src/conversations/generator';
import { Rng } from '../../eval/src/conversations/rng';
import { main } from '../../eval/src/run';

/**
 * The conversational development set (issue 36.5): the generator is deterministic, and every
 * question's gold sessions hold its evidence (its answer said there, by or to the person asked
 * about), so the recall the eval reports measures retrieval and not the generator's bookkeeping.
 * Then a smoke of `npm run eval -- conversations` on a small sample (shape only, never quality).
 */
describe('conversational set generator (no store)', () => {
  const set = generateConversations({ seed: 36 });

  it('gives the same sessions and questions for the same seed, other ones for another', () => {
    expect(generateConversations({ seed: 36 })).toEqual(set);
    const other = generateConversations({ seed: 37 });
    expect(other.sessions.map((s) => s.text)).not.toEqual(set.sessions.map((s) => s.text));
    expect(new Rng(5).shuffle([1, 2, 3, 4, 5, 6])).toEqual(new Rng(5).shuffle([1, 2, 3, 4, 5, 6]));
  });

  it('has several personas with 20+ dated sessions each, each session opening with its date line', () => {
    const speakers = new Set(set.sessions.flatMap((s) => s.speakers));
    expect(speakers.size).toBeGreaterThanOrEqual(6);
    for (const name of speakers) expect(set.sessions.filter((s) => s.speakers.includes(name)).length).toBeGreaterThanOrEqual(20);
    for (const s of set.sessions) {
      expect(s.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(s.text.split('\n')[0]).toMatch(/^(Session date|Date): /);
      // Every other line is a turn of one of the two speakers.
      for (const line of s.text.split('\n').slice(1)) expect(s.speakers).toContain(line.slice(0, line.indexOf(':')));
    }
    // Sessions of a pair are in date order.
    for (let i = 1; i < set.sessions.length; i++) if (set.sessions[i].pair === set.sessions[i - 1].pair) expect(set.sessions[i].date > set.sessions[i - 1].date).toBe(true);
  });

  it('asks all four kinds of question, each worded in more than one way', () => {
    const types = new Set(set.questions.map((q) => q.type));
    expect([...types].sort()).toEqual(['latest', 'multi-session', 'single-session', 'temporal']);
    for (const type of types) expect(set.questions.filter((q) => q.type === type).length).toBeGreaterThanOrEqual(10);
    const openings = new Set(set.questions.filter((q) => q.slot === 'job' && q.type === 'latest').map((q) => q.question.replace(/\b[A-Z][a-z]+\b/g, 'P')));
    expect(openings.size).toBeGreaterThan(1);
    expect(new Set(set.questions.map((q) => q.id)).size).toBe(set.questions.length);
  });

  it('puts the evidence in every gold session: an answer value, in a session of the person asked about', () => {
    const byTitle = new Map(set.sessions.map((s) => [s.title, s]));
    // A value opening a sentence is capitalised ("Photography lessons!"); an article may be left out.
    const says = (text: string, value: string) => text.toLowerCase().includes(value.replace(/^(a|an|the) /, '').toLowerCase());
    for (const q of set.questions) {
      expect(q.supporting_titles.length).toBeGreaterThan(0);
      for (const title of q.supporting_titles) {
        const session = byTitle.get(title)!;
        expect(session.speakers).toContain(q.persona);
        const said = q.values.filter((v) => says(session.text, v));
        if (said.length === 0) throw new Error(`${q.id} "${q.question}": gold ${title} says none of ${q.values.join(', ')}`);
      }
      // Each answer value is said in at least one gold session (a multi-session question needs them all).
      for (const v of q.values) expect(q.supporting_titles.some((t) => says(byTitle.get(t)!.text, v))).toBe(true);
      // And no session outside the gold states the asked fact about this person.
      const outside = set.sessions.filter((s) => !q.supporting_titles.includes(s.title));
      for (const s of outside) expect(s.mentions.some((m) => m.persona === q.persona && m.slot === q.slot && q.values.includes(m.value))).toBe(false);
    }
  });

  it('asks for the latest state only after a change, and its gold is the change and what came after', () => {
    for (const q of set.questions.filter((x) => x.type === 'latest')) {
      const own = set.sessions.filter((s) => s.speakers.includes(q.persona));
      const states = own.flatMap((s) => s.mentions.filter((m) => m.persona === q.persona && m.slot === q.slot).map((m) => ({ s, value: m.value })));
      expect(new Set(states.map((x) => x.value)).size).toBeGreaterThan(1);
      const firstGold = own.findIndex((s) => q.supporting_titles.includes(s.title));
      // Nothing after the first gold session states another value of the slot as new.
      const later = states.filter((x) => own.indexOf(x.s) > firstGold && x.value !== q.values[0]);
      expect(later.every((x) => x.s.mentions.some((m) => m.persona === q.persona && m.slot === q.slot && m.value === q.values[0]))).toBe(true);
    }
  });
});

describe('npm run eval -- conversations --limit 4 (embedded store)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'loci-eval-conv-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('ingests each session as a dated document, asks in the modes named and scores each question type beside BM25', async () => {
    const args = ['conversations', '--limit', '4', '--distractors', '4', '--modes', 'naive,mix', '--no-answers', '--budgets', '1000', '--cache-dir', join(dir, 'cache'), '--out', join(dir, 'out')];
    const run = await main(args, () => undefined);
    expect(run.code).toBe(0);
    const report = run.report as ConversationsReport;
    const { set } = conversationSet();
    const sampledGold = new Set(set.questions.slice(0, 4).flatMap((q) => q.supporting_titles));
    expect(report.eval).toBe('conversations');
    expect(report.corpus).toMatchObject({ questions: 4, passages: sampledGold.size + 4 });
    expect(report.store.ingestion).toMatchObject({ processed: sampledGold.size + 4, failed: 0 });
    expect(report.modes.map((m) => m.mode)).toEqual(['naive', 'mix']);
    for (const m of report.modes) expect(m.mode_used).toEqual({ [m.mode]: 4 });
    expect(Object.keys(report.by_type).length).toBeGreaterThan(0);
    for (const byRanker of Object.values(report.by_type)) expect(Object.keys(byRanker)).toEqual(['naive', 'mix', 'bm25']);
    expect(run.path).toMatch(/-conversations-limit4\.json$/);
  }, 300_000);
});
