/**
 * The PostgreSQL backend's connection pool: a few connections in pg's pipeline mode, each statement sent
 * on the least busy one at once, without waiting for the statements before it. Every statement of the
 * store is one implicit transaction of its own (its own Sync), so a pipeline never holds a lock across
 * statements, a failed statement fails alone, and one connection serves many concurrent requests: a
 * statement costs about half the CPU it costs on a connection that waits for each reply, on both sides.
 * Statements sent in one turn of the event loop leave in one write.
 *
 * Connections are made on first use and replaced when they drop. A statement's reply that does not come
 * within the budget (a paused server) fails it and drops its connection (pg cannot tell a pipeline's
 * later replies apart after a lost one), so the next statement connects anew: service comes back by
 * itself with the server. A statement that waits on a row lock holds up the ones behind it on its
 * connection only, and only for as long as the lock's holder runs, since no transaction spans statements.
 */
import { createHash } from 'node:crypto';
import { Client, type ClientConfig, type QueryResultRow } from 'pg';
import { withinBudget } from './store-errors.js';
import { StoreUnavailableError } from './types.js';

/**
 * One statement's text and the name it is prepared under: a connection parses a named statement once, not
 * per call. pg needs one name per text, so the name is the text's hash.
 */
export interface Statement {
  name: string;
  text: string;
}

export const statement = (text: string): Statement => ({
  name: `auk_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`,
  text,
});

export interface PostgresConnectionsOptions {
  /** For error messages, without credentials. */
  label: string;
  /** Connections at most. */
  size: number;
  /** Closing waits this long for the server's goodbye before dropping the connections. */
  timeoutMs: number;
}

interface Slot {
  client: Promise<Client> | undefined;
  /** Statements sent and not answered yet. */
  busy: number;
}

export class PostgresConnections {
  readonly #config: ClientConfig;
  readonly #label: string;
  readonly #timeoutMs: number;
  readonly #slots: Slot[];
  /** Every connection made and not yet gone, to drop them on close. */
  readonly #open = new Set<Client>();
  /** Connections whose writes wait for the end of this turn of the event loop. */
  readonly #corked = new WeakSet<Client>();
  #closed = false;

  constructor(config: ClientConfig, { label, size, timeoutMs }: PostgresConnectionsOptions) {
    this.#config = config;
    this.#label = label;
    this.#timeoutMs = timeoutMs;
    this.#slots = Array.from({ length: size }, () => ({ client: undefined, busy: 0 }));
  }

  /** The rows of one statement, sent by name on the least busy connection. */
  async rows<R extends QueryResultRow>(sql: Statement, values: unknown[]): Promise<R[]> {
    const slot = this.#leastBusy();
    slot.busy += 1;
    try {
      const client = await this.#connected(slot);
      this.#holdWrites(client);
      return (await client.query<R>({ name: sql.name, text: sql.text, values })).rows;
    } finally {
      slot.busy -= 1;
    }
  }

  /**
   * `work` on a connection of its own, outside the pipelines, closed after: for what spans statements,
   * such as the migration's transaction.
   */
  async alone<T>(work: (client: Client) => Promise<T>): Promise<T> {
    if (this.#closed) throw new StoreUnavailableError(`${this.#label} is closed`);
    const client = new Client(this.#config);
    this.#watch(client, () => undefined);
    let failed = false;
    try {
      await client.connect();
      return await work(client);
    } catch (error) {
      failed = true;
      throw error;
    } finally {
      // A connection that failed mid-way (its transaction, its reply) is dropped rather than said goodbye to.
      if (failed) this.#drop(client);
      else await this.#end(client);
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const slot of this.#slots) slot.client = undefined;
    await Promise.all([...this.#open].map((client) => this.#end(client)));
  }

  /**
   * Statements sent in one turn of the event loop leave in one write: the socket is corked until the turn
   * ends (setImmediate runs right after the turn's I/O callbacks). One system call and one wake-up of the
   * server per turn, not per statement.
   */
  #holdWrites(client: Client): void {
    if (this.#corked.has(client)) return;
    this.#corked.add(client);
    const stream = client.connection.stream;
    stream.cork();
    setImmediate(() => {
      this.#corked.delete(client);
      stream.uncork();
    });
  }

  #leastBusy(): Slot {
    let best = this.#slots[0]!;
    for (const slot of this.#slots) {
      // An unconnected slot counts as busy as any: connecting costs more than queueing behind a little work.
      if (slot.busy < best.busy) best = slot;
    }
    return best;
  }

  #connected(slot: Slot): Promise<Client> {
    if (this.#closed) return Promise.reject(new StoreUnavailableError(`${this.#label} is closed`));
    if (slot.client) return slot.client;
    const client = new Client({ ...this.#config, pipeline: true });
    const connecting = client.connect().then(
      () => client,
      (error: unknown) => {
        if (slot.client === connecting) slot.client = undefined;
        this.#drop(client);
        throw error;
      },
    );
    slot.client = connecting;
    this.#watch(client, () => {
      if (slot.client === connecting) slot.client = undefined;
    });
    return connecting;
  }

  /** A connection that errs or ends is forgotten (`gone`) and dropped; its statements fail with the reason. */
  #watch(client: Client, gone: () => void): void {
    this.#open.add(client);
    const lost = () => {
      gone();
      this.#drop(client);
    };
    client.on('error', lost);
    client.on('end', lost);
  }

  #drop(client: Client): void {
    if (!this.#open.delete(client)) return;
    // Late errors of a dropped connection have nobody to tell.
    client.on('error', () => undefined);
    client.connection.stream.destroy();
  }

  /** A goodbye within the budget; a server that does not answer it (paused) has its connection dropped. */
  async #end(client: Client): Promise<void> {
    if (!this.#open.has(client)) return;
    await withinBudget(`closing ${this.#label}`, this.#timeoutMs, () => client.end()).catch(() => undefined);
    this.#drop(client);
  }
}
