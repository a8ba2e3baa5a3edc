/**
 * What each chat stage produces, independent of who produces it: an LLM through a ChatModel
 * (prompted for JSON of these shapes) or the offline `local` provider (NLP + extractive text).
 */

export interface ExtractedEntity {
  name: string;
  /** person, organization, location, date, event, product, concept, ... (lowercase). */
  type: string;
  description: string;
}

export interface ExtractedRelation {
  /** Entity names, as in `entities`. */
  source: string;
  target: string;
  /** A short snake_case predicate: `works_at`, `lives_in`, `founded`. */
  relation: string;
  /** The fact as one sentence. */
  description: string;
  keywords: string[];
  /** ISO-8601 instants when the text says when the fact started / stopped being true. */
  valid_at: string | null;
  invalid_at: string | null;
  /**
   * The text says the fact holds beside the other values of its slot ("also works at Oxfam"),
   * so it supersedes none of them. Absent: the store's slot rules apply.
   */
  alongside?: boolean;
}

/**
 * A state of an entity the text says ended without naming its object: "Priya retired last
 * year", "She quit", "Anna got divorced". `relation` is the ending's verb (`retired`, `quit`,
 * `divorced`, `sold`, `moved_away`); the store ends the subject's live facts of the slot that
 * verb ends (temporal-rules.ts, `endedOpenlyBy`).
 */
export interface ExtractedEnding {
  /** An entity name, as in `entities`. */
  subject: string;
  relation: string;
  description: string;
  /** When it ended, when the text says. */
  valid_at: string | null;
  /** The common noun that named what ended ("car" in "sold her car"): a fact the earlier text stated with another word is not this one. */
  noun?: string;
}

export interface Extraction {
  entities: ExtractedEntity[];
  relations: ExtractedRelation[];
  /** Endings with no object named (the offline extractor gives them; a model's extraction may not). */
  endings?: ExtractedEnding[];
}

/** Query keywords: low-level = names and noun phrases; high-level = themes. */
export interface Keywords {
  high_level: string[];
  low_level: string[];
}

/** A retrieved item the answerer may cite, by its id. */
export interface CitableSource {
  id: string;
  text: string;
  /**
   * What the text is, where it matters to an answerer: a `fact` is true at the instant asked
   * (retrieval filtered it by validity), an entity's `description` keeps everything ever said of
   * the entity, superseded statements included. Unset: a passage of text.
   */
  kind?: 'fact' | 'description';
}

export interface Answer {
  answer: string;
  /** Ids of the sources the answer used, as given in the request. */
  cited: string[];
  /** Citations that named no given source (a model's invention); they are not in `cited`. */
  unresolvedCitations?: number;
}
