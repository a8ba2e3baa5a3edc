import type { INestApplication } from '@nestjs/common';
import { Client } from 'pg';
import { Database, DATABASE } from '@loci/db';

export interface StatementRecorder {
  /** The SQL text of every statement sent to the store since the recorder started. */
  readonly texts: string[];
  /**
   * The same statements with the connection each went over (a node-postgres client; PGlite's one
   * session, or the transaction object it hands out), to tell a request's statements from what
   * else the process ran on other connections meanwhile (the in-process worker's claims).
   */
  readonly sent: ReadonlyArray<{ text: string; connection: object }>;
  /** Those that read the `tenants` table itself (not through a join: the API key's and the user's reads join it). */
  tenantReads(): string[];
  stop(): void;
}

/**
 * Records every statement the app sends to its store, on both drivers: node-postgres clients
 * (pooled or checked out for a transaction) and PGlite's one session. Start it just before the
 * request to observe; anything else running in the process meanwhile is recorded too.
 */
export function recordStatements(app: INestApplication): StatementRecorder {
  const database = app.get<Database>(DATABASE);
  const texts: string[] = [];
  const sent: Array<{ text: string; connection: object }> = [];
  const record = (connection: unknown, arg: unknown) => {
    const text = textOf(arg);
    texts.push(text);
    sent.push({ text, connection: connection ?? database });
  };
  const textOf = (arg: unknown) => (typeof arg === 'string' ? arg : String((arg as { text?: string } | undefined)?.text ?? ''));
  let stop: () => void;
  if (database.kind === 'postgres') {
    // eslint-disable-next-line @typescript-eslint/unbound-method -- put back as it was, and applied with the client as `this`
    const original = Client.prototype.query;
    Client.prototype.query = function (this: Client, ...args: unknown[]) {
      record(this, args[0]);
      return (original as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof original;
    stop = () => void (Client.prototype.query = original);
  } else {
    // drizzle's PGlite session sends every statement through its client's query(), and a
    // transaction's through the query() of the transaction object PGlite hands it.
    type Query = (...a: unknown[]) => unknown;
    type Client = { query: Query; transaction: (callback: (tx: { query: Query }) => unknown) => unknown };
    const client = (database.db as unknown as { session: { client: Client } }).session.client;
    const recorded = (query: Query): Query =>
      function (this: unknown, ...args: unknown[]) {
        record(this, args[0]);
        return query.apply(this, args);
      };
    const { query, transaction } = client;
    client.query = recorded(query);
    client.transaction = function (this: unknown, callback) {
      return transaction.call(this, (tx) => {
        tx.query = recorded(tx.query);
        return callback(tx);
      });
    };
    stop = () => {
      client.query = query;
      client.transaction = transaction;
    };
  }
  return {
    texts,
    sent,
    tenantReads: () => texts.filter((text) => /\bfrom "tenants"/i.test(text)),
    stop: () => stop(),
  };
}
