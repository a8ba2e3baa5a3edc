import { EdgeRow, GraphReadsRepository, GraphsRepository } from '@loci/db';
import { createTenantWithPeople } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * Phrasings of change, remembered offline (the local extractor) after an earlier fact: the
 * facts each leaves in the graph, with their validity, as an LLM extractor and temporal
 * supersession would. An edge reads `relation target [valid_at..invalid_at]`, dates as days,
 * `superseded` when a later fact expired it; the earlier fact was remembered as of 2020-01-01,
 * the change as of 2025-09-01 (the date of a fact whose text gives none).
 */
interface Case {
  before?: string;
  text: string;
  edges: string[];
}

const WORKS_AT_ACME = 'Alice Martin works at Acme Corporation.';
const LIVES_IN_LISBON = 'Alice Martin lives in Lisbon.';
const CEO_OF_ACME = 'Alice Martin is the CEO of Acme Corporation.';
const ACME_WORK = 'works_at Acme Corporation [2020-01-01..';
const LISBON = 'lives_in Lisbon [2020-01-01..';
const CEO = 'ceo_of Acme Corporation [2020-01-01..';

const CASES: Case[] = [
  // left X and joined Y
  {
    before: WORKS_AT_ACME,
    text: 'In June 2025 Alice Martin left Acme Corporation and joined Globex Industries.',
    edges: [`${ACME_WORK}2025-06-01] superseded`, 'joined Globex Industries [2025-06-01..-]', 'left Acme Corporation [2025-06-01..-]'],
  },
  {
    before: WORKS_AT_ACME,
    text: 'Alice Martin left Acme Corporation and joined Globex Industries.',
    edges: [`${ACME_WORK}2025-09-01] superseded`, 'joined Globex Industries [2025-09-01..-]', 'left Acme Corporation [2025-09-01..-]'],
  },
  {
    before: WORKS_AT_ACME,
    text: 'Alice Martin left Acme Corporation for Globex Industries in 2024.',
    edges: [`${ACME_WORK}2024-01-01] superseded`, 'joined Globex Industries [2024-01-01..-]', 'left Acme Corporation [2024-01-01..-]'],
  },
  { before: WORKS_AT_ACME, text: 'Alice Martin left Acme Corporation in 2024.', edges: [`${ACME_WORK}2024-01-01]`, 'left Acme Corporation [2024-01-01..-]'] },
  // joined / is now at / since
  {
    before: WORKS_AT_ACME,
    text: 'Alice Martin joined Globex Industries in March 2024.',
    edges: [`${ACME_WORK}2024-03-01] superseded`, 'joined Globex Industries [2024-03-01..-]'],
  },
  {
    before: WORKS_AT_ACME,
    text: 'Alice Martin is now at Globex Industries.',
    edges: [`${ACME_WORK}2025-09-01] superseded`, 'works_at Globex Industries [2025-09-01..-]'],
  },
  {
    before: WORKS_AT_ACME,
    text: 'Alice Martin has worked at Globex Industries since 2022.',
    edges: [`${ACME_WORK}2022-01-01] superseded`, 'works_at Globex Industries [2022-01-01..-]'],
  },
  {
    before: WORKS_AT_ACME,
    text: 'Since 2022, Alice Martin has worked at Globex Industries.',
    edges: [`${ACME_WORK}2022-01-01] superseded`, 'works_at Globex Industries [2022-01-01..-]'],
  },
  {
    before: WORKS_AT_ACME,
    text: 'Alice Martin was hired by Globex Industries in 2024.',
    edges: [`${ACME_WORK}2024-01-01] superseded`, 'hired_by Globex Industries [2024-01-01..-]'],
  },
  {
    before: WORKS_AT_ACME,
    text: 'Alice Martin switched from Acme Corporation to Globex Industries in 2024.',
    edges: [
      `${ACME_WORK}2024-01-01] superseded`,
      'switched_from Acme Corporation [2024-01-01..-]',
      'switched_to Globex Industries [2024-01-01..-]',
    ],
  },
  // no longer / anymore / used to / stopped
  { before: WORKS_AT_ACME, text: 'Alice Martin no longer works at Acme Corporation.', edges: [`${ACME_WORK}2025-09-01]`] },
  { before: WORKS_AT_ACME, text: "Alice Martin doesn't work at Acme Corporation anymore.", edges: [`${ACME_WORK}2025-09-01]`] },
  { before: WORKS_AT_ACME, text: 'Alice Martin stopped working at Acme Corporation in 2023.', edges: [`${ACME_WORK}2023-01-01]`] },
  { before: LIVES_IN_LISBON, text: 'Alice Martin no longer lives in Lisbon.', edges: [`${LISBON}2025-09-01]`] },
  { before: LIVES_IN_LISBON, text: 'Alice Martin used to live in Lisbon.', edges: [`${LISBON}2025-09-01]`] },
  // an ending that names no object, a pronoun (third round): the facts of the slot the verb ends
  { before: WORKS_AT_ACME, text: 'Alice Martin retired in 2024.', edges: [`${ACME_WORK}2024-01-01]`] },
  { before: CEO_OF_ACME, text: 'Alice Martin was tired. She stepped down in 2024.', edges: [`${CEO}2024-01-01]`] },
  { before: LIVES_IN_LISBON, text: 'Alice Martin moved away in 2023.', edges: [`${LISBON}2023-01-01]`] },
  // until / from ... to
  { before: WORKS_AT_ACME, text: 'Alice Martin worked at Acme Corporation until 2023.', edges: [`${ACME_WORK}2023-01-01]`] },
  { before: LIVES_IN_LISBON, text: 'Alice Martin lived in Lisbon until 2021.', edges: [`${LISBON}2021-01-01]`] },
  { text: 'Alice Martin worked at Acme Corporation from 2019 to 2022.', edges: ['works_at Acme Corporation [2019-01-01..2022-01-01]'] },
  { before: CEO_OF_ACME, text: 'Alice Martin was the CEO of Acme Corporation until 2024.', edges: [`${CEO}2024-01-01]`] },
  // resigned / retired / quit / fired
  { before: WORKS_AT_ACME, text: 'Alice Martin resigned from Acme Corporation in 2023.', edges: [`${ACME_WORK}2023-01-01]`, 'resigned_from Acme Corporation [2023-01-01..-]'] },
  { before: WORKS_AT_ACME, text: 'Alice Martin retired from Acme Corporation in 2022.', edges: [`${ACME_WORK}2022-01-01]`, 'retired_from Acme Corporation [2022-01-01..-]'] },
  { before: WORKS_AT_ACME, text: 'Alice Martin quit Acme Corporation in 2024.', edges: [`${ACME_WORK}2024-01-01]`, 'quit Acme Corporation [2024-01-01..-]'] },
  { before: WORKS_AT_ACME, text: 'Alice Martin was fired from Acme Corporation in 2023.', edges: [`${ACME_WORK}2023-01-01]`, 'fired_from Acme Corporation [2023-01-01..-]'] },
  // former / stepped down as / retired as / replaced by / became
  { before: CEO_OF_ACME, text: 'Alice Martin is the former CEO of Acme Corporation.', edges: [`${CEO}2025-09-01]`] },
  { before: CEO_OF_ACME, text: 'Alice Martin is no longer the CEO of Acme Corporation.', edges: [`${CEO}2025-09-01]`] },
  { before: WORKS_AT_ACME, text: 'Alice Martin is a former employee of Acme Corporation.', edges: [`${ACME_WORK}2025-09-01]`, 'employee_of Acme Corporation [2025-09-01..2025-09-01]'] },
  { before: CEO_OF_ACME, text: 'Alice Martin stepped down as CEO of Acme Corporation in 2024.', edges: [`${CEO}2024-01-01]`] },
  { before: CEO_OF_ACME, text: 'Alice Martin retired as CEO of Acme Corporation in 2022.', edges: [`${CEO}2022-01-01]`] },
  {
    before: CEO_OF_ACME,
    text: 'Alice Martin was replaced by Bob Stone as CEO of Acme Corporation in 2024.',
    edges: [`${CEO}2024-01-01]`, 'Bob Stone ceo_of Acme Corporation [2024-01-01..-]'],
  },
  {
    before: CEO_OF_ACME,
    text: 'Alice Martin became CEO of Globex Industries in 2024.',
    edges: [`${CEO}2024-01-01] superseded`, 'ceo_of Globex Industries [2024-01-01..-]'],
  },
  { before: CEO_OF_ACME, text: 'Alice Martin is now the CEO of Globex Industries.', edges: [`${CEO}2025-09-01] superseded`, 'ceo_of Globex Industries [2025-09-01..-]'] },
  // a new holder of a role one person holds at a time (issue 36.4)
  {
    before: CEO_OF_ACME,
    text: 'Bob Stone is the new CEO of Acme Corporation.',
    edges: [`${CEO}2025-09-01] superseded`, 'Bob Stone ceo_of Acme Corporation [2025-09-01..-]'],
  },
  {
    before: 'Alice Martin owns Villa Rosa.',
    text: 'Villa Rosa was bought by Bob Stone in 2024.',
    edges: ['owns Villa Rosa [2020-01-01..2024-01-01] superseded', 'Bob Stone bought Villa Rosa [2024-01-01..-]'],
  },
  // a job noun, a couple parting (issue 36.4)
  {
    before: WORKS_AT_ACME,
    text: 'Alice Martin took a job at Globex Industries in 2024.',
    edges: [`${ACME_WORK}2024-01-01] superseded`, 'joined Globex Industries [2024-01-01..-]'],
  },
  {
    before: 'Alice Martin is dating Bob Stone.',
    text: 'Alice Martin and Bob Stone broke up in 2024.',
    edges: ['dates Bob Stone [2020-01-01..2024-01-01]', 'broke_up_with Bob Stone [2024-01-01..-]', 'Bob Stone broke_up_with Alice Martin [2024-01-01..-]'],
  },
  // moved from A to B / relocated / moved out / since
  {
    before: LIVES_IN_LISBON,
    text: 'Alice Martin moved from Lisbon to Berlin in 2024.',
    edges: [`${LISBON}2024-01-01] superseded`, 'moved_from Lisbon [2024-01-01..-]', 'moved_to Berlin [2024-01-01..-]'],
  },
  { before: LIVES_IN_LISBON, text: 'Alice Martin moved to Berlin in 2024.', edges: [`${LISBON}2024-01-01] superseded`, 'moved_to Berlin [2024-01-01..-]'] },
  { before: LIVES_IN_LISBON, text: 'Alice Martin relocated to Porto in 2023.', edges: [`${LISBON}2023-01-01] superseded`, 'relocated_to Porto [2023-01-01..-]'] },
  { before: LIVES_IN_LISBON, text: 'Alice Martin moved out of Lisbon in 2023.', edges: [`${LISBON}2023-01-01]`, 'moved_out_of Lisbon [2023-01-01..-]'] },
  { before: LIVES_IN_LISBON, text: 'Alice Martin has lived in Berlin since 2021.', edges: [`${LISBON}2021-01-01] superseded`, 'lives_in Berlin [2021-01-01..-]'] },
  { before: LIVES_IN_LISBON, text: 'Alice Martin now lives in Porto.', edges: [`${LISBON}2025-09-01] superseded`, 'lives_in Porto [2025-09-01..-]'] },
  // marriage, headquarters
  {
    before: 'Alice Martin is married to Bob Stone.',
    text: 'Alice Martin divorced Bob Stone in 2022.',
    edges: ['divorced Bob Stone [2022-01-01..-]', 'Bob Stone divorced Alice Martin [2022-01-01..-]', 'married_to Bob Stone [2020-01-01..2022-01-01]'],
  },
  // a noun that names the state, "new" + a slot's noun, "ex-", "also" (issue 36.4)
  {
    before: WORKS_AT_ACME,
    text: "Alice Martin's contract with Acme Corporation expired in 2024.",
    edges: [`${ACME_WORK}2024-01-01]`, 'left Acme Corporation [2024-01-01..-]'],
  },
  { before: LIVES_IN_LISBON, text: "Alice Martin's new address is in Berlin.", edges: [`${LISBON}2025-09-01] superseded`, 'lives_in Berlin [2025-09-01..-]'] },
  {
    before: WORKS_AT_ACME,
    text: 'Alice Martin is an ex-employee of Acme Corporation.',
    edges: [`${ACME_WORK}2025-09-01]`, 'employee_of Acme Corporation [2025-09-01..2025-09-01]'],
  },
  { before: WORKS_AT_ACME, text: 'Alice Martin also works at Globex Industries.', edges: [`${ACME_WORK}-]`, 'works_at Globex Industries [2025-09-01..-]'] },
  {
    before: 'Alice Martin is a member of the Lisbon Chess Club.',
    text: 'Alice Martin cancelled her membership of the Lisbon Chess Club.',
    edges: ['member_of Lisbon Chess Club [2020-01-01..2025-09-01]'],
  },
  { before: LIVES_IN_LISBON, text: 'Alice Martin is moving to Berlin.', edges: [`${LISBON}-]`] },
  {
    before: 'Acme Corporation is based in Paris.',
    text: 'Acme Corporation is now based in Berlin.',
    edges: ['Acme Corporation based_in Berlin [2025-09-01..-]', 'Acme Corporation based_in Paris [2020-01-01..2025-09-01] superseded'],
  },
  // A shorter name of the same body resolves to it (shorter-names.ts).
  {
    before: 'Alice Martin is a member of the Labour Party.',
    text: 'Alice Martin left Labour in 2024.',
    edges: ['member_of Labour Party [2020-01-01..2024-01-01]', 'left Labour Party [2024-01-01..-]'],
  },
];

describe('local extraction of change, on the graph (gb remember, offline)', () => {
  let t: TestApp;
  let people: Awaited<ReturnType<typeof createTenantWithPeople>>;

  beforeAll(async () => {
    t = await startTestApp({ ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined });
    people = await createTenantWithPeople(t.app);
  });
  afterAll(() => t.close());

  const remember = (userId: string, text: string, validAt: string) =>
    t.http.post('/v1/gb/remember').set('Authorization', `Bearer ${people.apiKey.key}`).send({ user_id: userId, text, valid_at: validAt }).expect(200);

  const day = (date: Date | null) => (date ? date.toISOString().slice(0, 10) : '-');

  it('has at least 30 phrasings', () => expect(CASES.length).toBeGreaterThanOrEqual(30));

  it.each(CASES.map((c, i) => [c.text, i, c] as const))('%s', async (_text, i, c) => {
    const userId = `change-${i}`;
    if (c.before) await remember(userId, c.before, '2020-01-01T00:00:00Z');
    await remember(userId, c.text, '2025-09-01T00:00:00Z');
    const graph = await t.app.get(GraphsRepository).findGbGraph(people.tenant.id, userId, 'main');
    const { edges, entities } = await t.app.get(GraphReadsRepository).graphContents(people.tenant.id, graph!.id);
    const name = (id: number) => entities.find((e) => e.id === id)!.name;
    // Alice's facts read without her name; anyone else's with it.
    const read = (e: EdgeRow) =>
      `${name(e.sourceId) === 'Alice Martin' ? '' : `${name(e.sourceId)} `}${e.relation} ${name(e.targetId)} [${day(e.validAt)}..${day(e.invalidAt)}]${e.expiredAt ? ' superseded' : ''}`;
    expect(edges.map(read).sort()).toEqual([...c.edges].sort());
  });
});
