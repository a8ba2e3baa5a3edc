import type { Embedder, EmbeddingRequest, EmbeddingResult } from '../model.types';
import { answerLocally, LOCAL_NO_INFORMATION_ANSWER } from './answerer';
import { LocalHashingEmbedder } from './hashing.embedder';

const SOURCES = [
  { id: 'c1', text: 'Alice Johnson works at Acme Corporation in Berlin. She joined the company in 2021 as a data engineer.' },
  { id: 'c2', text: 'Bob moved to Paris in March 2023. He works for Globex as a designer.' },
  { id: 'c3', text: 'The weather in Berlin is often rainy in autumn.' },
  { id: 'e1', text: 'Acme Corporation (organization): a company based in Berlin that makes industrial robots.' },
];

describe('answerLocally', () => {
  const embedder = new LocalHashingEmbedder();

  it('answers with the closest sentence and cites its source', async () => {
    expect(await answerLocally('Where does Alice work?', SOURCES, embedder)).toEqual({
      answer: 'Alice Johnson works at Acme Corporation in Berlin.',
      cited: ['c1'],
    });
    expect(await answerLocally('When did Bob move to Paris?', SOURCES, embedder)).toEqual({
      answer: 'Bob moved to Paris in March 2023.',
      cited: ['c2'],
    });
  });

  it('brings the sentence before a picked sentence that opens with a pronoun', async () => {
    const answer = await answerLocally('Who works for Globex?', SOURCES, embedder);
    expect(answer).toEqual({ answer: 'Bob moved to Paris in March 2023. He works for Globex as a designer.', cited: ['c2'] });
  });

  it('cites every source used, once each, in order of use', async () => {
    const answer = await answerLocally('What does Acme Corporation make?', SOURCES, embedder);
    expect(answer.answer).toContain('makes industrial robots');
    expect(answer.cited).toContain('e1');
    expect(new Set(answer.cited).size).toBe(answer.cited.length);
    const order = answer.cited.map((id) => SOURCES.findIndex((s) => s.id === id));
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });

  it('says it has no information when nothing is close enough', async () => {
    expect(await answerLocally('What is the capital of Australia?', SOURCES, embedder)).toEqual({
      answer: LOCAL_NO_INFORMATION_ANSWER,
      cited: [],
    });
    expect(await answerLocally('Where does Alice work?', [], embedder)).toEqual({ answer: LOCAL_NO_INFORMATION_ANSWER, cited: [] });
    expect(await answerLocally('  ', SOURCES, embedder)).toEqual({ answer: LOCAL_NO_INFORMATION_ANSWER, cited: [] });
    expect(await answerLocally('Where does Alice work?', [{ id: 'x', text: '' }], embedder)).toEqual({
      answer: LOCAL_NO_INFORMATION_ANSWER,
      cited: [],
    });
  });

  it('embeds the question and the sentences in one call with the given embedder', async () => {
    const calls: EmbeddingRequest[] = [];
    const counting: Embedder = {
      provider: 'local',
      model: 'local-test',
      dimensions: embedder.dimensions,
      embed: async (request: EmbeddingRequest): Promise<EmbeddingResult> => {
        calls.push(request);
        return embedder.embed(request);
      },
    };
    await answerLocally('Where does Alice work?', SOURCES, counting);
    expect(calls).toHaveLength(1);
    expect(calls[0].texts[0]).toBe('Where does Alice work?');
    expect(calls[0].texts).toContain('The weather in Berlin is often rainy in autumn.');
  });

  it('does not repeat a sentence found in two sources', async () => {
    const twice = [
      { id: 'a', text: 'Alice works at Acme.' },
      { id: 'b', text: 'Alice works at Acme.' },
    ];
    expect(await answerLocally('Where does Alice work?', twice, embedder)).toEqual({ answer: 'Alice works at Acme.', cited: ['a'] });
  });

  it('answers about the person the question names, not someone else in the context', async () => {
    // Fay's sentence shares "live" with the question; Alice's says "moved".
    const context = [
      { id: 'f1', text: 'Fay Lin lives in Lisbon.' },
      { id: 'c1', text: 'Fay Lin lives in Lisbon with her sister. Alice Martin moved to Porto in 2024.' },
      { id: 'c2', text: 'Alice Martin works at Globex Industries.' },
    ];
    const answer = await answerLocally('Where does Alice live now?', context, embedder);
    expect(answer.answer).toContain('Alice Martin moved to Porto in 2024.');
    expect(answer.answer).not.toMatch(/Fay Lin/);
    expect(answer.cited).not.toContain('f1');
  });

  it('falls back to the closest sentences when no retrieved sentence names the person asked about', async () => {
    const answer = await answerLocally('Where does Zoe live?', [{ id: 'f1', text: 'Fay Lin lives in Lisbon.' }], embedder);
    expect(answer).toEqual({ answer: 'Fay Lin lives in Lisbon.', cited: ['f1'] });
  });

  it('never repeats a sentence, however the sources spell or punctuate it', async () => {
    // The graph's fact, its entity's description and the chunk all state the same sentence.
    const context = [
      { id: 'r1', text: 'Alice Martin lives in Berlin' },
      { id: 'e1', text: 'Alice  Martin lives in Berlin.' },
      { id: 'c1', text: 'alice martin lives in berlin!' },
    ];
    expect(await answerLocally('Where does Alice Martin live?', context, embedder)).toEqual({ answer: 'Alice Martin lives in Berlin.', cited: ['r1'] });
  });

  // Passages as gb gives them: a text's title on a line of its own, then its paragraph; an
  // entity's description as "Name: its mentions' sentences; joined".
  const EXIES = { id: 'passage:1', text: 'The Exies\nThe Exies were an American rock band from Los Angeles, California, formed in 1997. They released four albums.' };
  const DIABLO = {
    id: 'passage:2',
    text: 'Circus Diablo\nCircus Diablo is an American rock band, formed in early 2006 by Billy Morrison and Billy Duffy. Their only album came out in 2007.',
  };
  const DIABLO_ENTITY = {
    id: 'entity:3',
    text: 'Circus Diablo: Circus Diablo; Morrison previously fronted the hard rock act Circus Diablo.; Circus Diablo is an American rock band, formed in early 2006 by Billy Morrison and Billy Duffy.',
  };
  const HEINKEL = {
    id: 'passage:4',
    text: 'Heinkel HD 38\nThe Heinkel HD 38 was a fighter aircraft developed in Germany in the late 1920s.\n\nHeinkel HD 23\nThe Heinkel HD 23 was a carrier-borne fighter biplane designed in Germany in 1926.',
  };
  const WARD = { id: 'passage:5', text: 'Transfiguration of Vincent\nTransfiguration of Vincent, released in 2003, is the third studio album by singer-songwriter M. Ward.' };
  const WARD_ENTITY = { id: 'entity:6', text: 'Ward: Transfiguration of Vincent, released in 2003, is the third studio album by singer-songwriter M. Ward.' };
  const WARD_BORN = {
    id: 'passage:7',
    text: 'M. Ward\nMatthew Stephen Ward, better known as M. Ward, is a singer-songwriter and guitarist. Ward was born in 1973 in Oregon.',
  };
  const WEATHER = { id: 'passage:8', text: 'Berlin\nThe weather in Berlin is often rainy in autumn, and rock bands play in its clubs.' };

  it.each([
    {
      case: 'a comparison takes a sentence about each entity asked, not a title line',
      question: 'Which band was formed first, The Exies or Circus Diablo?',
      sources: [DIABLO, WEATHER, EXIES],
      answer:
        'Circus Diablo is an American rock band, formed in early 2006 by Billy Morrison and Billy Duffy. The Exies were an American rock band from Los Angeles, California, formed in 1997.',
      cited: ['passage:2', 'passage:1'],
    },
    {
      case: 'an entity description restating its passage is not said twice, and its other statements stay out',
      question: 'When was Circus Diablo formed?',
      sources: [DIABLO_ENTITY, DIABLO],
      answer: 'Circus Diablo is an American rock band, formed in early 2006 by Billy Morrison and Billy Duffy.',
      cited: ['entity:3'],
    },
    {
      case: 'the entity asked, not a neighbour with a near name',
      question: 'When was the Heinkel HD 23 designed?',
      sources: [HEINKEL],
      answer: 'The Heinkel HD 23 was a carrier-borne fighter biplane designed in Germany in 1926.',
      cited: ['passage:4'],
    },
    {
      case: 'a second hop follows the name the first sentence brought in, once',
      question: 'Transfiguration of Vincent is the third studio album by a singer-songwriter born in what year?',
      sources: [WARD, WEATHER, WARD_BORN, WARD_ENTITY],
      answer:
        'Transfiguration of Vincent, released in 2003, is the third studio album by singer-songwriter M. Ward. Matthew Stephen Ward, better known as M. Ward, is a singer-songwriter and guitarist. Ward was born in 1973 in Oregon.',
      cited: ['passage:5', 'passage:7'],
    },
    {
      case: 'of a fact, its passage and its entity saying the same thing, the first source is the one cited',
      question: 'Where does Alice Johnson work?',
      sources: [
        { id: 'edge:1', text: 'Alice Johnson works at Acme Corporation.' },
        { id: 'passage:2', text: 'Alice Johnson works at Acme Corporation, in Berlin.' },
        { id: 'entity:3', text: 'Alice Johnson: Alice Johnson works at Acme Corporation.' },
      ],
      answer: 'Alice Johnson works at Acme Corporation.',
      cited: ['edge:1'],
    },
    {
      case: "an answer drawn from an entity's description says what the facts about that entity say now",
      question: 'Where does Alice work?',
      sources: [
        { id: 'edge:2', kind: 'fact' as const, text: 'Alice joined Globex.' },
        { id: 'entity:1', kind: 'description' as const, text: 'Alice: Alice works at Acme.; Alice joined Globex.' },
      ],
      answer: 'Alice joined Globex. Alice: Alice works at Acme.',
      cited: ['edge:2', 'entity:1'],
    },
  ])('$case', async ({ question, sources, answer, cited }) => {
    const answered = await answerLocally(question, sources, embedder);
    expect(answered).toEqual({ answer, cited });
    const sentences = answered.answer.split(/(?<=\.) /);
    expect(new Set(sentences).size).toBe(sentences.length);
  });
});
