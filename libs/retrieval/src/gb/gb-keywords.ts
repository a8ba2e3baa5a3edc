/**
 * Step 1.1 of the gb query contract: the question lowercased and split into terms; terms shorter
 * than 2 characters, common stopwords and duplicates dropped; at most 12 kept.
 */

export const GB_STOPWORDS: ReadonlySet<string> = new Set(
  (
    'a an the and or but nor so yet if then else than that this these those there here ' +
    'i me my mine myself we us our ours ourselves you your yours yourself yourselves ' +
    'he him his himself she her hers herself it its itself they them their theirs themselves ' +
    'what which who whom whose where when why how whatever whoever whichever ' +
    'am is are was were be been being have has had having do does did doing done ' +
    'will would shall should can could may might must ought ' +
    'at by for from in into of off on onto out over to under up down with within without ' +
    'about above across after against along among around as before behind below beneath beside ' +
    'between beyond during except inside near since through throughout toward towards until upon via ' +
    'not no only own same too very just also still already ever even again once ' +
    'all any both each every few more most other some such many much several ' +
    'something anything nothing everything someone anyone everyone somebody anybody ' +
    'don doesn didn isn aren wasn weren won can cannot couldn wouldn shouldn haven hasn hadn ' +
    'll ve re please tell know let show give say said get got like now'
  ).split(/\s+/),
);

export function keywordTerms(question: string, options: { maxTerms: number; minTermLength: number }): string[] {
  const terms: string[] = [];
  for (const raw of question.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if ([...raw].length < options.minTermLength || GB_STOPWORDS.has(raw) || terms.includes(raw)) continue;
    terms.push(raw);
    if (terms.length >= options.maxTerms) break;
  }
  return terms;
}

/** The key entities are matched on: ingestion's `normalized_name`. */
export { normalizeEntityName as normalizeName } from '@loci/common';
