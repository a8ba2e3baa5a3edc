import type { CitableSource } from '@loci/llm';

/**
 * An answer about the present is written from text that states only live facts. A passage is
 * the text as it was sent ("Alice works at Acme since 2023."), and an entity's description
 * may still hold a sentence of an older text, so after "In March 2024, Alice joined Globex."
 * the offline answer to "Where does Alice work?" quoted the first sentence beside the second.
 * Here each statement of a fact that was superseded or ended (its description: one sentence of
 * the text that stated it, or several joined by "; ") is taken out of every source that repeats
 * it, unless a live fact in the context states the same sentence (one sentence can state a live
 * fact beside the ended one). A source left with nothing to say is dropped.
 */
export function withoutStaleStatements(sources: CitableSource[], ended: Array<string | null>, live: Array<string | null>): CitableSource[] {
  const stillTrue = new Set(live.flatMap(statementsOf).map((s) => s.toLowerCase()));
  const stale = [...new Set(ended.flatMap(statementsOf))].filter((s) => !stillTrue.has(s.toLowerCase()));
  if (stale.length === 0) return sources;
  return sources.flatMap((source) => {
    const lines = source.text.split('\n').flatMap((line) => withoutStatements(line, stale));
    const text = lines.join('\n');
    if (text === source.text) return [source];
    return text.trim() === '' ? [] : [{ ...source, text }];
  });
}

/**
 * One line without the statements: a list item that states one ("- 2019 (date): Alice works at
 * Acme since 2019.", a fact's line) goes whole, as what is left of it would read as something
 * else; in prose the statement alone goes. A line left with a name and nothing to say goes too.
 */
function withoutStatements(line: string, stale: string[]): string[] {
  let text = line;
  for (const statement of stale) text = removeEvery(text, statement);
  if (text === line) return [line];
  if (/^\s*- /.test(line)) return [];
  // What is left of "Name: description", of joined statements, once a statement is out.
  const tidy = text.replace(/(;\s*)+/g, '; ').replace(/^\s*;\s*|\s*;\s*$/g, '').replace(/:\s*;\s*/g, ': ').replace(/\s{2,}/g, ' ').trim();
  return /^[^:]*:?\s*$/.test(tidy) && !/[.!?]/.test(tidy) ? [] : [tidy];
}

function statementsOf(description: string | null): string[] {
  return (description ?? '').split('; ').map((s) => s.trim()).filter((s) => s.length > 0);
}

/** `text` without any occurrence of `statement`, letter case apart. */
function removeEvery(text: string, statement: string): string {
  const lower = text.toLowerCase();
  const needle = statement.toLowerCase();
  let out = '';
  let from = 0;
  for (let at = lower.indexOf(needle); at !== -1; at = lower.indexOf(needle, from)) {
    out += text.slice(from, at);
    from = at + needle.length;
  }
  return out + text.slice(from);
}
