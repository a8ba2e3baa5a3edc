import { measurePair, measureStateChanges, ratesOf, STATE_CHANGES } from './state-changes.measure';

/**
 * Changes of state offline (issue 36.4): the public list of state / change pairs
 * (libs/llm/src/local/fixtures/state-changes.json) through offline extraction and the store's
 * supersession rule. `npm run eval:state-changes` prints the same rates per category.
 *
 * Targets on the tuning part: the earlier fact ended in >= 90% of change pairs, a fact wrongly
 * ended in <= 5% of control pairs. The held-out part (every third pair, never looked at while
 * the extractor's rules were written) measures how far the rules carry to phrasings they were
 * not written for: 61% ended and 0% wrongly ended when the rules were first written (from 20% /
 * 0% before them), 74% / 0% after the second round (nominal states, "new" + a slot's noun,
 * appositions, names; `state-change-rules.spec.ts` holds that round's own phrasings), 78% / 0%
 * after the third (pronouns, endings that name no object, implied endings; its own pairs, ids
 * r3-, are tuning pairs appended to the list, 86 changes and 36 controls), 80% / 0% after the
 * fourth (names read as verbs, adjectives before a name, offices named by their verb, names with
 * a number; ids r4-, 69 changes and 21 controls written before its rules). Its floors
 * sit about one standard error below the last measure (54 change pairs: ±6 points) so that a
 * regression fails while a small, honest change does not, and its wrong-end ceiling allows 2 of
 * its 20 controls.
 */
/** Pairs of the list as first written, before any rule; the held-out part is every third of them. */
const FIRST_LIST = 223;

describe('changes of state, offline', () => {
  const results = measureStateChanges();
  const tuning = ratesOf(results.filter((r) => r.pair.part === 'tuning'));
  const heldOut = ratesOf(results.filter((r) => r.pair.part === 'held-out'));

  it('keeps a public list of at least 150 pairs across the kinds of state, with controls and a held-out third', () => {
    const changes = STATE_CHANGES.pairs.filter((p) => p.kind === 'change');
    const controls = STATE_CHANGES.pairs.filter((p) => p.kind === 'control');
    expect(changes.length).toBeGreaterThanOrEqual(150);
    expect(controls.length).toBeGreaterThanOrEqual(30);
    expect(new Set(changes.map((p) => p.category))).toEqual(
      new Set(['employment', 'residence', 'relationships', 'roles', 'ownership', 'membership', 'location', 'status']),
    );
    // The first list's every third pair is held out; later rounds' pairs (r3- to r11-) are all tuning.
    STATE_CHANGES.pairs.forEach((p, i) => expect(p.part).toBe(i < FIRST_LIST && i % 3 === 2 ? 'held-out' : 'tuning'));
    expect(STATE_CHANGES.pairs.slice(FIRST_LIST).every((p) => /^r(?:[3-9]|1[01])-/.test(p.id))).toBe(true);
    expect(STATE_CHANGES.pairs.slice(0, FIRST_LIST).some((p) => /^r\d-/.test(p.id))).toBe(false);
    expect(new Set(STATE_CHANGES.pairs.map((p) => p.id)).size).toBe(STATE_CHANGES.pairs.length);
  });

  // The targets: 90% ended, 5% wrongly ended (docs/QUALITY.md). The tuning part meets
  // them since the twelfth round's rules; the held-out part is guarded by a floor below what it
  // reaches (87%), reported beside it.
  it("meets the issue's targets on the tuning part: ended at least 90%, a wrong one in at most 5% of its controls", () => {
    console.log(`state changes, tuning: ${JSON.stringify(tuning)}\nstate changes, held-out: ${JSON.stringify(heldOut)}`);
    expect(tuning.ended).toBeGreaterThanOrEqual(0.9);
    expect(tuning.wronglyEnded).toBeLessThanOrEqual(0.05);
  });

  it('keeps the held-out part above its floors', () => {
    expect(heldOut.ended).toBeGreaterThanOrEqual(0.85);
    expect(heldOut.wronglyEnded).toBeLessThanOrEqual(0.1);
  });

  it('ends the facts of the issue\'s own examples', () => {
    const ids = ['employment-01', 'employment-02', 'employment-03', 'roles-01'];
    for (const id of ids) {
      const pair = STATE_CHANGES.pairs.find((p) => p.id === id)!;
      expect({ id, ended: measurePair(pair).ended }).toEqual({ id, ended: true });
    }
  });

  it('names relations as words of the vocabulary ("started working at" is works_at)', () => {
    const pair = STATE_CHANGES.pairs.find((p) => p.id === 'employment-03')!;
    const facts = measurePair(pair).afterState;
    expect(facts.map((f) => f.relation)).toContain('works_at');
    const names = new Set(results.flatMap((r) => [...r.afterState, ...r.afterChange].map((f) => f.relation)));
    for (const name of names) expect(name).toMatch(/^[a-z0-9]+(?:_[a-z0-9]+)*$/);
    // (Verbs that end in "ing" themselves, "sings", "brings", are words.)
    const ingVerbs = /^(?:br|s|r|st|sw|cl|fl|sl|spr|wr|str)ings?(?:_|$)/;
    expect([...names].filter((name) => /ings?_|ings$/.test(name) && !ingVerbs.test(name))).toEqual([]);
  });
});
