/* The longest event-loop stall of the two ingestion steps of issue 16.4 that held the API's
 * main thread: metering a local extraction of ~1 300 names (countTokens of its ~150 KB of JSON)
 * and handing ~1 300 name vectors of 1 024 to the CPU pool (similarEarlierNames). A 1 ms
 * interval runs beside each step; the longest gap between its ticks is the stall.
 * Works on any build's dist: a build without countLocalTokens / CpuPool.similarEarlierNames
 * is measured the way it did the step (countTokens inline, the arrays cloned to the thread).
 * Usage: node bench/experiments/event-loop-stalls.cjs [dist folder, default ./dist] [rounds, default 3]
 */
const { resolve } = require('node:path');
const dist = resolve(process.argv[2] ?? 'dist');
const rounds = Number(process.argv[3] ?? 3);
const { CpuPool } = require(`${dist}/libs/ingest/src/cpu/cpu-pool`);
const tokens = require(`${dist}/libs/llm/src/metering/token-counter`);
const textWork = require(`${dist}/libs/llm/src/local/local-text-work`);

async function longestStall(step) {
  let last = performance.now();
  let longest = 0;
  const probe = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 1);
  const started = performance.now();
  await step();
  const took = performance.now() - started;
  await new Promise((r) => setTimeout(r, 5));
  clearInterval(probe);
  return { longest, took };
}

/** Distinct made-up full names ("Kalomi Rasute"), as in test/e2e/cpu-off-event-loop.e2e-spec.ts. */
function person(i) {
  const syllables = ['ka', 'lo', 'mi', 'ra', 'su', 'te', 'vo', 'ne', 'di', 'ba', 'po', 'zu', 'fe', 'gi', 'ha', 'jo'];
  const word = (n) => {
    let w = '';
    for (let k = 0; k < 3; k++, n >>= 4) w += syllables[n % 16];
    return w[0].toUpperCase() + w.slice(1);
  };
  return `${word(i * 7 + 3)} ${word(i * 13 + 5)}`;
}

async function main() {
  const pool = new CpuPool({ ingest: { cpuThreads: 1 } });
  const input = 'Members: ' + Array.from({ length: 1300 }, (_, i) => person(i)).join(', ');
  const output = JSON.stringify({
    entities: Array.from({ length: 1300 }, (_, i) => ({ name: person(i), type: 'person', description: `${person(i)} is a member of the club.` })),
    relations: [],
  });
  // Like the hashing embedder's name vectors: mostly zeros, and come back from a CPU thread by
  // structured clone (arrays whose elements V8 then keeps boxed, the slow kind to clone again).
  const vectors = structuredClone(Array.from({ length: 1300 }, (_, i) => Array.from({ length: 1024 }, (_, k) => (k % 5 ? 0 : Math.sin(i * 0.7 + k * 0.01)))));
  const meter = textWork.countLocalTokens
    ? () => textWork.countLocalTokens(pool, input, output)
    : async () => [tokens.countTokens(input), tokens.countTokens(output)];
  const names = pool.similarEarlierNames ? () => pool.similarEarlierNames(vectors, 0.99) : () => pool.run('similarEarlierNames', vectors, 0.99);
  // Threads started and warm before measuring.
  await pool.run('summarize', 'Alice works at Acme.');
  await meter();
  await names();
  for (let round = 1; round <= rounds; round++) {
    const m = await longestStall(meter);
    const n = await longestStall(names);
    console.log(
      `round ${round}  metering: longest stall ${m.longest.toFixed(1)} ms (step ${m.took.toFixed(0)} ms)  name vectors: longest stall ${n.longest.toFixed(1)} ms (step ${n.took.toFixed(0)} ms)`,
    );
  }
  await pool.onApplicationShutdown();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
