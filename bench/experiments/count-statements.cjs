// A --require hook for the API child (LOCI_BENCH_API_NODE_ARGS="--require $PWD/bench/experiments/count-statements.cjs"):
// counts the statements the API sends (node-postgres Client.prototype.query, pooled and
// transaction clients alike) by their first 90 characters, and the HTTP requests it serves by
// method and path, and writes both as JSON to $LOCI_COUNT_OUT (default
// /tmp/loci-count-<pid>.json) every second. Statements per question = the statements of the
// run, less the boot's (migrations, the operator check), over the questions.
const pg = require(require.resolve('pg', { paths: [process.cwd()] }));
const http = require('node:http');
const fs = require('node:fs');

const out = process.env.LOCI_COUNT_OUT || `/tmp/loci-count-${process.pid}.json`;
const statements = {};
const requests = {};
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function (...args) {
  const first = args[0];
  const text = typeof first === 'string' ? first : (first && (first.text || first.name)) || '?';
  const kind = String(text).replace(/\s+/g, ' ').slice(0, 90);
  statements[kind] = (statements[kind] || 0) + 1;
  return query.apply(this, args);
};
const emit = http.Server.prototype.emit;
http.Server.prototype.emit = function (event, req, ...rest) {
  if (event === 'request') {
    const kind = `${req.method} ${String(req.url).split('?')[0]}`;
    requests[kind] = (requests[kind] || 0) + 1;
  }
  return emit.call(this, event, req, ...rest);
};
setInterval(() => fs.writeFileSync(out, JSON.stringify({ statements, requests })), 1000).unref();
