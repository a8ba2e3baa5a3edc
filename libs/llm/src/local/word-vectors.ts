import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The committed vocabulary (libs/llm/assets; see convert-word-vectors.mjs for its format). */
export const WORD_VECTORS_FILE = join('libs', 'llm', 'assets', 'word-vectors-50k-100d.bin');

/** Pretrained word vectors of a fixed vocabulary, most frequent word first. */
export interface WordVectors {
  dimensions: number;
  /** Word → its frequency rank (0 = most frequent). */
  ranks: Map<string, number>;
  /** The rank's vector: `components[rank * dimensions + d] * scales[rank]`. */
  scales: Float32Array;
  components: Int8Array;
}

/** Parses the file `convert-word-vectors.mjs` writes. */
export function parseWordVectors(bytes: Buffer): WordVectors {
  if (bytes.toString('ascii', 0, 4) !== 'LWV1') throw new Error('not a word-vectors file (LWV1)');
  const count = bytes.readUInt32LE(4);
  const dimensions = bytes.readUInt32LE(8);
  let at = 12;
  const scales = new Float32Array(count);
  for (let i = 0; i < count; i++, at += 4) scales[i] = bytes.readFloatLE(at);
  const components = new Int8Array(bytes.buffer.slice(bytes.byteOffset + at, bytes.byteOffset + at + count * dimensions));
  at += count * dimensions;
  const words = bytes.toString('utf8', at).split('\n');
  if (words.length !== count) throw new Error(`word-vectors file lists ${words.length} words, its header ${count}`);
  return { dimensions, ranks: new Map(words.map((word, rank) => [word, rank])), scales, components };
}

let loaded: WordVectors | undefined;

/** The committed vocabulary, read once per process (5.6 MB, tens of milliseconds). */
export function wordVectors(from: string = __dirname): WordVectors {
  if (loaded) return loaded;
  let dir = from;
  for (;;) {
    const candidate = join(dir, WORD_VECTORS_FILE);
    if (existsSync(candidate)) return (loaded = parseWordVectors(readFileSync(candidate)));
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`${WORD_VECTORS_FILE} not found above ${from}`);
    dir = parent;
  }
}
