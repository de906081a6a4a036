/**
 * One LISTEN connection for a backend's watchers: made on the first listen, a channel LISTENed while it
 * has a handler and UNLISTENed when its last one goes. Idle channels cost nothing but that connection.
 *
 * PostgreSQL forgets a connection's LISTENs with the connection. When it drops (a restarted server, a
 * network cut), the listener connects again with a capped backoff while anything is listened to, LISTENs
 * every channel again, and then calls every handler without a payload: what was notified meanwhile is lost,
 * so each watcher must look for itself.
 */
import { Client, type ClientConfig, type Notification } from 'pg';
import { withinBudget } from './store-errors.js';
import { StoreUnavailableError } from './types.js';

/** Called with a notification's payload, or with none after a reconnect. */
export type ChannelHandler = (payload?: string) => void;

export interface PostgresListenerOptions {
  /** For error messages, without credentials. */
  label: string;
  /** Connecting, each LISTEN, and closing take at most this. */
  timeoutMs: number;
  /** The connection's settings (the backend's, without the pool's). */
  config: ClientConfig;
}

/** Pauses before reconnecting, doubling to this cap. */
const RECONNECT_FIRST_MS = 50;
const RECONNECT_CAP_MS = 1000;
/** Channels LISTENed again per round trip after a reconnect. */
const LISTEN_BATCH = 500;

export class PostgresListener {
  readonly #label: string;
  readonly #timeoutMs: number;
  readonly #config: ClientConfig;
  /** Each listened channel: its handlers, and its LISTEN (settled once the server has it). */
  readonly #channels = new Map<string, { handlers: Set<ChannelHandler>; listening: Promise<void> }>();
  /** The connection, connected or on its way; undefined while there is none. */
  #client: Promise<Client> | undefined;
  /** LISTEN and UNLISTEN commands not yet sent, in the order asked. */
  #queued: QueuedCommand[] = [];
  /** A batch of commands is on the connection; the next batch waits for its reply. */
  #sending = false;
  /** Connections given up on, whose late 'end' or 'error' must not count again. */
  readonly #dropped = new WeakSet<Client>();
  #retry: NodeJS.Timeout | undefined;
  #attempts = 0;
  /** A connection was lost since the last one was made: the next one wakes every handler. */
  #missed = false;
  #closed = false;

  constructor({ label, timeoutMs, config }: PostgresListenerOptions) {
    this.#label = label;
    this.#timeoutMs = timeoutMs;
    this.#config = config;
  }

  /** Resolves once notifications on `channel` reach `handler`; returns the function that stops them. */
  async listen(channel: string, handler: ChannelHandler): Promise<() => void> {
    if (this.#closed) throw new StoreUnavailableError(`${this.#label}: the event log is closed`);
    let entry = this.#channels.get(channel);
    if (!entry) {
      // The first handler sends the LISTEN; later ones wait for the same one, so none resolves before it.
      const listening = this.#connection().then(async (client) => {
        try {
          await this.#command(client, `LISTEN ${quoted(channel)}`);
        } catch (error) {
          // A LISTEN that failed or timed out leaves the connection's state unknown: start over on a new one.
          this.#lost(client);
          throw error;
        }
      });
      this.#channels.set(channel, (entry = { handlers: new Set(), listening }));
    }
    const { handlers, listening } = entry;
    // A handler of its own, so the same function may listen twice and stop each time separately.
    const own: ChannelHandler = (payload) => handler(payload);
    handlers.add(own);
    const stop = () => {
      if (!handlers.delete(own) || handlers.size > 0 || this.#channels.get(channel) !== entry) return;
      this.#channels.delete(channel);
      // Queued behind any earlier command on the connection, so a LISTEN sent after it still wins.
      void this.#client?.then((client) => this.#command(client, `UNLISTEN ${quoted(channel)}`)).catch(() => undefined);
    };
    try {
      await listening;
    } catch (error) {
      stop();
      throw error;
    }
    return stop;
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#retry);
    this.#channels.clear();
    const client = await this.#client?.catch(() => undefined);
    this.#client = undefined;
    if (!client) return;
    await withinBudget(`closing the event log's listener on ${this.#label}`, this.#timeoutMs, () => client.end()).catch(() =>
      client.connection.stream.destroy(),
    );
  }

  /**
   * Commands go in the order asked, and those asked while a batch is on the connection go together as the
   * next one (a query without parameters may hold several statements): under load, one round trip per
   * LISTEN made every new watch wait behind all the others.
   */
  #command(client: Client, sql: string): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#queued.push({ client, sql, resolve, reject });
      void this.#send();
    });
  }

  async #send(): Promise<void> {
    if (this.#sending) return;
    this.#sending = true;
    try {
      while (this.#queued.length > 0) {
        // One batch per connection: a command meant for a connection given up on fails with it.
        const client = this.#queued[0]!.client;
        const end = this.#queued.findIndex((command) => command.client !== client);
        const batch = this.#queued.splice(0, end === -1 ? this.#queued.length : end);
        try {
          await client.query(batch.map((command) => `${command.sql};`).join(' '));
          for (const command of batch) command.resolve();
        } catch (error) {
          // Which statement failed is not known: each of the batch reports it, and a LISTEN starts over.
          for (const command of batch) command.reject(error);
        }
      }
    } finally {
      this.#sending = false;
    }
  }

  #connection(): Promise<Client> {
    this.#client ??= this.#connect().catch((error: unknown) => {
      this.#client = undefined;
      throw error;
    });
    return this.#client;
  }

  async #connect(): Promise<Client> {
    const client = new Client(this.#config);
    const lost = () => this.#lost(client);
    client.on('error', lost);
    client.on('end', lost);
    client.on('notification', (message: Notification) => this.#deliver(message.channel, message.payload));
    try {
      await withinBudget(`connecting the event log's listener to ${this.#label}`, this.#timeoutMs, async () => {
        await client.connect();
        // The channels already listened to (after a reconnect, all of them), many per round trip: a query
        // without parameters may hold several statements.
        const channels = [...this.#channels.keys()];
        for (let i = 0; i < channels.length; i += LISTEN_BATCH) {
          await client.query(
            channels
              .slice(i, i + LISTEN_BATCH)
              .map((channel) => `LISTEN ${quoted(channel)};`)
              .join(' '),
          );
        }
      });
    } catch (error) {
      this.#dropped.add(client);
      client.on('error', () => undefined);
      client.connection.stream.destroy();
      throw error;
    }
    this.#attempts = 0;
    if (this.#missed) {
      this.#missed = false;
      // Whatever was notified while no connection listened is lost: every watcher looks for itself.
      queueMicrotask(() => this.#wakeAll());
    }
    return client;
  }

  /** The connection dropped, or cannot be trusted: forget it, and connect again while anything is listened to. */
  #lost(client: Client): void {
    if (this.#closed || this.#dropped.has(client)) return;
    this.#dropped.add(client);
    client.on('error', () => undefined);
    client.connection.stream.destroy();
    const current = this.#client;
    void current?.then(
      (mine) => {
        if (mine !== client || this.#client !== current) return;
        this.#client = undefined;
        this.#missed = true;
        this.#scheduleReconnect();
      },
      () => undefined,
    );
  }

  #scheduleReconnect(): void {
    if (this.#closed || this.#channels.size === 0 || this.#retry !== undefined) return;
    const delay = Math.min(RECONNECT_FIRST_MS * 2 ** this.#attempts, RECONNECT_CAP_MS);
    this.#attempts += 1;
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      if (this.#closed || this.#channels.size === 0 || this.#client !== undefined) return;
      this.#connection().catch(() => this.#scheduleReconnect());
    }, delay);
    this.#retry.unref();
  }

  #deliver(channel: string, payload?: string): void {
    for (const handler of [...(this.#channels.get(channel)?.handlers ?? [])]) {
      try {
        handler(payload);
      } catch {
        // A handler's failure is its own; the others still hear the notification.
      }
    }
  }

  #wakeAll(): void {
    for (const channel of [...this.#channels.keys()]) this.#deliver(channel);
  }
}

interface QueuedCommand {
  client: Client;
  sql: string;
  resolve(): void;
  reject(error: unknown): void;
}

/** Channels are made by the log from a hash (postgres-log.ts), so quoting never meets a quote inside. */
const quoted = (channel: string): string => `"${channel}"`;
