import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** A passage of the public HotpotQA-100 development set (../shared/eval, beside the repository). */
export interface HotpotPassage {
  title: string;
  text: string;
}

/** The set's passages; benches run from the repository's root, as `npm run` does. */
export function hotpotPassages(): HotpotPassage[] {
  return JSON.parse(readFileSync(join(process.cwd(), '..', 'shared', 'eval', 'hotpotqa-100', 'corpus.json'), 'utf8')) as HotpotPassage[];
}

/**
 * `count` windows of 12 consecutive words of the passages, each starting `step` words after the
 * last (wrapping round): short texts like an entity's name and description or a fact, to embed.
 */
export function passageWindows(count: number, step: number): string[] {
  const words = hotpotPassages().flatMap((passage) => passage.text.split(/\s+/).filter(Boolean));
  const texts: string[] = [];
  for (let i = 0; texts.length < count; i = (i + step) % Math.max(1, words.length - 12)) texts.push(words.slice(i, i + 12).join(' '));
  return texts;
}
