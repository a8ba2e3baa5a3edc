import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { defaultCorpusFolder } from '../../eval/src/corpus';
import { findRepoRoot } from '../../eval/src/run';

/**
 * The HotpotQA-100 development set is not part of the repository: it sits beside it, at
 * ../shared/eval/hotpotqa-100 (HotpotQA's training sample and corpus as the HippoRAG repository
 * distributes them, CC BY-SA 4.0; docs/QUALITY.md says how it is shaped). On a fresh clone the
 * suites that read it are skipped, and say so in one line, instead of failing.
 */
export const evalCorpusFolder = defaultCorpusFolder(findRepoRoot());

export const hasEvalSet = ['corpus.json', 'questions.json'].every((file) => existsSync(join(evalCorpusFolder, file)));

/** `describe` when the development set is present; otherwise skipped, with a line saying where it comes from. */
export function describeWithEvalSet(name: string, body: () => void): void {
  if (hasEvalSet) return describe(name, body);
  console.warn(
    `skipped "${name}": the HotpotQA-100 development set is not at ${relative(process.cwd(), evalCorpusFolder) || evalCorpusFolder} ` +
      '(it sits beside the repository, not in it: see docs/QUALITY.md, "The development set")',
  );
  describe.skip(name, body);
}

/** `it` when the development set is present; otherwise skipped (the file's describe says why). */
export const itWithEvalSet: jest.It = hasEvalSet ? it : it.skip;
