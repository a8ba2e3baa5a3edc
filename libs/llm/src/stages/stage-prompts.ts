/**
 * The prompts of the chat stages. Each asks for JSON only, in the shape its schema checks.
 * Kept apart from the calling code so they can be read, reviewed and tuned on their own.
 */

export const EXTRACT_SYSTEM = `You extract a knowledge graph from text.
Return only JSON: {"entities": [{"name", "type", "description"}], "relations": [{"source", "target", "relation", "description", "keywords", "valid_at", "invalid_at"}]}.
- entities: the people, organizations, locations, dates, events, products and concepts the text names. type is one lowercase word. description says who or what it is, from the text only.
- relations: facts linking two entities named in "entities" (source and target use their exact names). relation is a short snake_case predicate (works_at, lives_in, founded). description states the fact in one sentence. keywords: up to 5 words.
- valid_at / invalid_at: ISO-8601 instants when the text says when the fact became true / stopped being true, else null. Resolve relative dates (yesterday, last week, in May, on Friday) against the document date when one is given, or against a date line in the text, and write the absolute date in the description.
- A line "Name: text" is a turn of a conversation: "I", "me" and "my" in it are that speaker, who is a person entity and the source of what they say of themselves.
- Do not invent anything the text does not say. Pronouns are not entities.`;

export function extractUser(text: string, documentDate?: Date): string {
  const date = documentDate ? `Document date: ${documentDate.toISOString()}\n` : '';
  return `${date}<text>\n${text}\n</text>`;
}

export const SUMMARIZE_SYSTEM = `You summarize a passage for a retrieval index.
Return only JSON: {"summary": "..."} — at most 3 sentences, naming the main entities and facts, nothing that is not in the passage.`;

export const KEYWORDS_SYSTEM = `You pick search keywords for a question over a knowledge graph.
Return only JSON: {"high_level": [...], "low_level": [...]}.
- low_level: the specific names, entities and noun phrases the question mentions.
- high_level: the broader themes or concepts it is about.`;

export const DETECT_GEO_SYSTEM = `You list the places a question mentions.
Return only JSON: {"places": ["...", ...]}.
- places: the cities, towns, regions and countries the question names, as written; a place and what it lies in together ("Springfield, Missouri").
- Not people, organizations or anything else. An empty list when the question names no place.`;

export const ANSWER_SYSTEM = `You answer a question using only the numbered sources given.
Return only JSON: {"answer": "...", "cited": ["<source id>", ...]}.
- Use only what the sources say; if they do not answer the question, say so plainly in "answer".
- "cited" lists the ids of the sources the answer relies on.`;

/**
 * The streamed answer is read as it is written, so it is prose, not JSON: its citations are
 * inline markers, which the caller collects once the stream has ended (citedIds).
 */
export const ANSWER_STREAM_SYSTEM = `You answer a question using only the numbered sources given.
Write the answer as plain text, not JSON. After each statement, cite the sources it relies on by their ids in square brackets, like [1] or [2, kg].
- Use only what the sources say; if they do not answer the question, say so plainly.`;

/**
 * The answer stage's message (streamed or not). The instants the question names are stated:
 * `as_of`, the time the question is about (treated as now), and `known_at`, the time the
 * sources were recorded by.
 */
export function answerUser(question: string, sources: { id: string; text: string }[], asOf?: Date, knownAt?: Date): string {
  const rendered = sources.map((s) => `[source ${s.id}]\n${s.text}`).join('\n\n');
  const about = asOf ? `The question is about ${asOf.toISOString()}: answer as things stood at that instant (treat it as now), from all the sources know.\n` : '';
  const known = knownAt ? `The sources are what had been recorded by ${knownAt.toISOString()}: answer from that knowledge only.\n` : '';
  const instant = about || known ? `${about}${known}\n` : '';
  return `${instant}<sources>\n${rendered}\n</sources>\n\nQuestion: ${question}`;
}
