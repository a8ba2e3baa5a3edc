import type nlpLibrary from 'compromise';

export type Nlp = typeof nlpLibrary;

let loaded: Nlp | undefined;

/**
 * compromise with its dates plugin, loaded on first use rather than with the process: its
 * lexicon and rules take ~25 MB of heap (~35 MB resident), which a process that never runs the
 * local NLP (an API answering API-key questions) does not need, and which also made every
 * garbage collection of such a process walk it.
 */
export function compromise(): Nlp {
  if (!loaded) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const nlp = require('compromise') as Nlp;
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    nlp.plugin(require('compromise-dates'));
    loaded = nlp;
  }
  return loaded;
}
