import Negotiator from 'negotiator';

/**
 * The sentence /v1/query answers when there is nothing to answer from, in each language Loci
 * writes it in. The contract fixes the Russian one for an empty graph, and clients written to
 * the contract may compare it, so it stays the default: a tenant's `answer_language` or a
 * request's Accept-Language choose another.
 */
export const NO_ANSWER_SENTENCES = {
  ru: 'Недостаточно данных для ответа.',
  en: 'Not enough data to answer.',
} as const;

export type AnswerLanguage = keyof typeof NO_ANSWER_SENTENCES;

export const ANSWER_LANGUAGES = Object.keys(NO_ANSWER_SENTENCES) as AnswerLanguage[];

/** The /v1/query contract's language: its empty-graph answer is the Russian sentence. */
export const CONTRACT_LANGUAGE: AnswerLanguage = 'ru';

const isAnswerLanguage = (value: unknown): value is AnswerLanguage => typeof value === 'string' && value in NO_ANSWER_SENTENCES;

/**
 * The language a request's Accept-Language prefers among Loci's, by its q-values (`en-US`
 * matches `en`); undefined when it sends none or names none of them. A wildcard is no
 * preference (fetch sends `*` by default): the tenant's language decides then. A browser sends
 * its user's languages, so the console speaks them; a program that sends none gets its tenant's.
 */
export function requestedAnswerLanguage(req: { headers: Record<string, string | string[] | undefined> }): AnswerLanguage | undefined {
  const header = req.headers['accept-language'];
  if (typeof header !== 'string') return undefined;
  const named = header
    .split(',')
    .filter((range) => range.split(';')[0].trim() !== '*')
    .join(',');
  if (!named.trim()) return undefined;
  const [best] = new Negotiator({ headers: { 'accept-language': named } }).languages(ANSWER_LANGUAGES);
  return isAnswerLanguage(best) ? best : undefined;
}

/** The request's language first, then the tenant's setting, then the contract's. */
export function noAnswerSentence(requested: AnswerLanguage | undefined, tenantLanguage: string | null | undefined): string {
  const language = requested ?? (isAnswerLanguage(tenantLanguage) ? tenantLanguage : CONTRACT_LANGUAGE);
  return NO_ANSWER_SENTENCES[language];
}
