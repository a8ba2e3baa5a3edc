import type { Extraction } from '../tasks.types';
import { extractLocally } from './extractor';

const entity = (x: Extraction, name: string) => x.entities.find((e) => e.name === name);
const relation = (x: Extraction, source: string, rel: string, target: string) =>
  x.relations.find((r) => r.source === source && r.relation === rel && r.target === target);

describe('extractLocally', () => {
  it('finds a person, an organization, a place and the works_at fact', () => {
    const x = extractLocally('Alice Johnson works at Acme Corporation in Berlin.');
    expect(entity(x, 'Alice Johnson')).toMatchObject({ type: 'person' });
    expect(entity(x, 'Acme Corporation')).toMatchObject({ type: 'organization' });
    expect(entity(x, 'Berlin')).toMatchObject({ type: 'location' });
    expect(entity(x, 'Alice Johnson')?.description).toBe('Alice Johnson works at Acme Corporation in Berlin.');
    expect(relation(x, 'Alice Johnson', 'works_at', 'Acme Corporation')).toEqual({
      source: 'Alice Johnson',
      target: 'Acme Corporation',
      relation: 'works_at',
      description: 'Alice Johnson works at Acme Corporation in Berlin.',
      keywords: ['works at', 'employment'],
      valid_at: null,
      invalid_at: null,
    });
  });

  it('dates a move from the date in its sentence', () => {
    const x = extractLocally('In March 2023, Bob moved to Paris.');
    expect(entity(x, 'Bob')).toMatchObject({ type: 'person' });
    expect(entity(x, 'Paris')).toMatchObject({ type: 'location' });
    expect(entity(x, 'March 2023')).toMatchObject({ type: 'date' });
    expect(relation(x, 'Bob', 'moved_to', 'Paris')).toMatchObject({ valid_at: '2023-03-01T00:00:00.000Z', invalid_at: null });
  });

  it('finds an acquisition between two organizations', () => {
    const x = extractLocally('Microsoft acquired GitHub in 2018.');
    expect(entity(x, 'Microsoft')).toMatchObject({ type: 'organization' });
    expect(entity(x, 'GitHub')).toMatchObject({ type: 'organization' });
    expect(relation(x, 'Microsoft', 'acquired', 'GitHub')).toMatchObject({
      valid_at: '2018-01-01T00:00:00.000Z',
      keywords: ['acquired', 'acquisition'],
    });
  });

  it('turns a passive with an agent around', () => {
    const x = extractLocally('Google was founded by Larry Page and Sergey Brin.');
    expect(relation(x, 'Larry Page', 'founded', 'Google')).toBeDefined();
    expect(relation(x, 'Sergey Brin', 'founded', 'Google')).toBeDefined();
  });

  it('reads since, until and from–to as the start and end of a fact', () => {
    expect(relation(extractLocally('Since 2021, Carol Smith has lived in London.'), 'Carol Smith', 'lives_in', 'London')).toMatchObject({
      valid_at: '2021-01-01T00:00:00.000Z',
      invalid_at: null,
    });
    expect(relation(extractLocally('Alice worked at Acme until 2021.'), 'Alice', 'works_at', 'Acme')).toMatchObject({
      valid_at: null,
      invalid_at: '2021-01-01T00:00:00.000Z',
    });
    expect(
      relation(extractLocally('Carol worked at Initech from May 2018 until June 2020.'), 'Carol', 'works_at', 'Initech'),
    ).toMatchObject({ valid_at: '2018-05-01T00:00:00.000Z', invalid_at: '2020-06-01T00:00:00.000Z' });
  });

  it('records leaving as an event, and an ended fact only when it can date the end', () => {
    expect(relation(extractLocally('Alice left Acme in 2024.'), 'Alice', 'left', 'Acme')).toMatchObject({
      valid_at: '2024-01-01T00:00:00.000Z',
      invalid_at: null,
    });
    expect(extractLocally('Alice no longer works at Acme.').relations).toEqual([]);
    const dated = extractLocally('Alice no longer works at Acme.', { referenceDate: new Date('2025-06-15T00:00:00Z') });
    expect(relation(dated, 'Alice', 'works_at', 'Acme')).toMatchObject({ valid_at: null, invalid_at: '2025-06-15T00:00:00.000Z' });
    expect(extractLocally('Alice does not work at Hooli.').relations).toEqual([]);
  });

  it('resolves relative dates only against a reference date', () => {
    expect(relation(extractLocally('Last year Bob joined Globex.'), 'Bob', 'joined', 'Globex')?.valid_at).toBeNull();
    const x = extractLocally('Last year Bob joined Globex.', { referenceDate: new Date('2025-06-15T00:00:00Z') });
    expect(relation(x, 'Bob', 'joined', 'Globex')?.valid_at).toBe('2024-01-01T00:00:00.000Z');
    const march = extractLocally('Bob joined Globex in March.', { referenceDate: new Date('2025-01-10T00:00:00Z') });
    expect(relation(march, 'Bob', 'joined', 'Globex')?.valid_at).toBe('2024-03-01T00:00:00.000Z');
  });

  it('reads a paragraph: no pronoun entities; a pronoun\'s facts are its person\'s, said with the name', () => {
    const text =
      'Dr. Emily Chen is a researcher at Stanford University. She studies machine learning. ' +
      'In 2019 she married Tom Baker. They live in San Francisco, California. ' +
      'Her company, DeepMind, was acquired by Google in 2014. It has offices in London.';
    const x = extractLocally(text);
    const names = x.entities.map((e) => e.name.toLowerCase());
    for (const pronoun of ['she', 'her', 'they', 'it', 'he', 'his', 'them']) expect(names).not.toContain(pronoun);
    expect(entity(x, 'Emily Chen')).toMatchObject({ type: 'person' });
    expect(entity(x, 'Tom Baker')).toMatchObject({ type: 'person' });
    expect(entity(x, 'Stanford University')).toMatchObject({ type: 'organization' });
    expect(entity(x, 'San Francisco')).toMatchObject({ type: 'location' });
    expect(entity(x, 'California')).toMatchObject({ type: 'location' });
    expect(entity(x, 'DeepMind')).toMatchObject({ type: 'organization' });
    // A job at an organization is employment, whatever the job: one relation name for every phrasing.
    expect(relation(x, 'Emily Chen', 'works_at', 'Stanford University')).toBeDefined();
    expect(relation(x, 'Google', 'acquired', 'DeepMind')).toMatchObject({ valid_at: '2014-01-01T00:00:00.000Z' });
    expect(relation(x, 'San Francisco', 'located_in', 'California')).toBeDefined();
    // "she" is the last woman named before it; "They" and "It" stand for no one.
    expect(relation(x, 'Emily Chen', 'married', 'Tom Baker')).toMatchObject({ description: 'In 2019 she (Emily Chen) married Tom Baker.' });
    expect(x.relations.filter((r) => r.source === 'Tom Baker' || r.target === 'London')).toEqual([]);
    for (const r of x.relations) {
      // Both ends of every fact are named in the one sentence it was read from (a pronoun by the name it stands for).
      expect(r.description).toContain(r.source);
      expect(r.description).toContain(r.target);
      expect(x.entities.some((e) => e.name === r.source)).toBe(true);
      expect(x.entities.some((e) => e.name === r.target)).toBe(true);
      expect(r.relation).toMatch(/^[a-z0-9]+(?:_[a-z0-9]+)*$/);
    }
  });

  it('names each entity once, normalised, and merges short names into the full one', () => {
    const x = extractLocally(
      'Alice   Johnson works at Acme Corporation.\nAlice lives in Berlin. Acme opened an office in Tokyo in 2020. ALICE JOHNSON likes Berlin.',
    );
    const names = x.entities.map((e) => e.name.toLowerCase());
    expect(new Set(names).size).toBe(names.length);
    expect(entity(x, 'Alice Johnson')).toBeDefined();
    expect(entity(x, 'Alice')).toBeUndefined();
    expect(relation(x, 'Alice Johnson', 'lives_in', 'Berlin')).toBeDefined();
    expect(relation(x, 'Acme Corporation', 'opened_in', 'Tokyo')).toMatchObject({ valid_at: '2020-01-01T00:00:00.000Z' });
  });

  it('handles lists, relative clauses and copulas', () => {
    const x = extractLocally(
      'Alice and Bob founded Globex in 2010. Carol, who lives in Paris, joined Meta. ' +
        'John Smith is the CEO of Initech. Bob lives in Rome and Carol works at Acme.',
    );
    expect(relation(x, 'Alice', 'founded', 'Globex')).toMatchObject({ valid_at: '2010-01-01T00:00:00.000Z' });
    expect(relation(x, 'Bob', 'founded', 'Globex')).toBeDefined();
    expect(relation(x, 'Carol', 'lives_in', 'Paris')).toBeDefined();
    expect(relation(x, 'Carol', 'joined', 'Meta')).toBeDefined();
    expect(relation(x, 'Paris', 'joined', 'Meta')).toBeUndefined();
    expect(relation(x, 'John Smith', 'ceo_of', 'Initech')).toBeDefined();
    expect(entity(x, 'Initech')).toMatchObject({ type: 'organization' });
    expect(relation(x, 'Bob', 'lives_in', 'Rome')).toBeDefined();
    expect(relation(x, 'Rome', 'works_at', 'Acme')).toBeUndefined();
    expect(relation(x, 'Carol', 'works_at', 'Acme')).toBeDefined();
  });

  it('names one fact one way and a change as the event that ends it (issue 36.4)', () => {
    const ref = { referenceDate: new Date('2025-06-15T00:00:00Z') };
    expect(relation(extractLocally('In January 2020, Alice started working at Acme.', ref), 'Alice', 'works_at', 'Acme')).toMatchObject({
      valid_at: '2020-01-01T00:00:00.000Z',
    });
    expect(relation(extractLocally('Leo works as an engineer at Tesla.', ref), 'Leo', 'works_at', 'Tesla')).toBeDefined();
    expect(relation(extractLocally("Tom has been a nurse at St. Mary's since 2015.", ref), 'Tom', 'works_at', "St. Mary's")).toBeDefined();
    expect(relation(extractLocally('Kate is dating Josh.', ref), 'Kate', 'dates', 'Josh')).toBeDefined();
    const parted = extractLocally('Kate and Josh broke up last month.', ref);
    expect(relation(parted, 'Kate', 'broke_up_with', 'Josh')).toBeDefined();
    expect(relation(parted, 'Josh', 'broke_up_with', 'Kate')).toBeDefined();
    expect(relation(extractLocally('Maria quit Deloitte in February.', ref), 'Maria', 'quit', 'Deloitte')).toMatchObject({
      valid_at: '2025-02-01T00:00:00.000Z',
    });
    expect(relation(extractLocally('Maria sold her Honda Civic.', ref), 'Maria', 'sold', 'Honda Civic')).toBeDefined();
    expect(relation(extractLocally('The Tigers fired Sundar in November.', ref), 'Sundar', 'fired_from', 'Tigers')).toBeDefined();
    expect(relation(extractLocally('Our CTO is Priya.', ref), 'Priya', 'has_role', 'CTO')).toMatchObject({ invalid_at: null });
    const handedOver = extractLocally('Dan replaced Priya as CTO.', ref);
    expect(relation(handedOver, 'Priya', 'has_role', 'CTO')).toMatchObject({ invalid_at: '2025-06-15T00:00:00.000Z' });
    expect(relation(handedOver, 'Dan', 'has_role', 'CTO')).toMatchObject({ invalid_at: null });
    expect(relation(extractLocally('The Sea Breeze is now moored in Southampton.', ref), 'Sea Breeze', 'moved_to', 'Southampton')).toBeDefined();
    // Not yet a fact.
    expect(extractLocally('Nimbus announced that Helen Park will step down as CEO.', ref).relations).toEqual([]);
  });

  it('dates a past event to the month before the text, in the fact and its description alike', () => {
    const referenceDate = new Date('2025-06-15T00:00:00Z');
    const moved = extractLocally('Bob moved to Lisbon in September.', { referenceDate });
    expect(relation(moved, 'Bob', 'moved_to', 'Lisbon')).toMatchObject({
      valid_at: '2024-09-01T00:00:00.000Z',
      description: 'Bob moved to Lisbon in September (2024-09-01).',
    });
    // A verb whose past is its bare form ("quit") is the past in the description too, as in the time.
    const quit = extractLocally('Ben quit in August.', { referenceDate });
    expect(quit.endings?.[0]).toMatchObject({ valid_at: '2024-08-01T00:00:00.000Z', description: 'Ben quit in August (2024-08-01).' });
    // A plan keeps the coming month.
    const planned = extractLocally('Bob will move to Lisbon in September.', { referenceDate });
    expect(planned.entities.find((e) => e.name === 'Bob')?.description).toBe('Bob will move to Lisbon in September (2025-09-01).');
  });

  it('is deterministic', () => {
    const text =
      'Tesla, the electric car maker led by Elon Musk, opened a new factory in Berlin in March 2022. ' +
      'Volkswagen announced in 2023 that it would invest in Spain. On 12 January 2024, Tesla cut prices in China.';
    expect(extractLocally(text)).toEqual(extractLocally(text));
    const ref = { referenceDate: new Date('2025-06-15T00:00:00Z') };
    expect(extractLocally(text, ref)).toEqual(extractLocally(text, ref));
  });

  it('returns nothing for empty or pronoun-only text', () => {
    expect(extractLocally('')).toEqual({ entities: [], relations: [] });
    expect(extractLocally('   \n ')).toEqual({ entities: [], relations: [] });
    expect(extractLocally('She told him that they would meet it there.')).toEqual({ entities: [], relations: [] });
  });
});
