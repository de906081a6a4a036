/**
 * Contract §10: a host that is an MCP client hands each `elicitation/create` of an MCP server to the user
 * through the same store, event, card and continue route as `ask_user`, and answers the server as the card
 * was answered: `accept` with typed content, `decline` (the card's cancel), or `cancel` (expired,
 * superseded, or the run stopped). Exactly once, as any card: the continue route's claim decides. In URL
 * mode the card is a link: opening it answers `accept` (the server then goes on out of band).
 *
 * An MCP request lives in the process holding the connection, so the waiting request is kept in memory:
 * after a restart the card is still shown, but says honestly that it cannot be answered (`resumable:
 * false`). A page reload is no restart: the run waiting in the MCP call goes on, and the answer from the
 * reloaded page carries what it says next (relay-sink.ts). MCP gives the client no link from an
 * elicitation to the tool call that caused it, so the host runs each MCP tool call inside
 * `during(client, { sessionId, sse }, call)`: calls on one client take turns.
 */
import { randomBytes } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { ClosedContext, ResumeContext, RunHost, SseSink } from '../core/host.js';
import type { ChatInput, RuntimeCore, RuntimeFactory } from '../core/runtime.js';
import { contentFromAnswers, formFromElicitation, linkFromElicitation, type PropertyPlan } from './elicitation-form.js';
import { RelaySink, relayed, relayedChat } from './relay-sink.js';

export interface McpElicitationOptions {
  /** Language of the Yes/No labels of a boolean. @default 'zh' */
  locale?: 'zh' | 'en';
  /** An elicitation answered `decline` without showing anything (a schema outside §10's shapes, no session running). @default console.warn */
  onDeclined?: (reason: string) => void;
}

interface Waiter {
  /** How to type the answers; empty for a link card, whose accept carries no content. */
  plan: PropertyPlan[];
  /** The stream of the run that made the call, when the runtime was wrapped by `around`. */
  relay: RelaySink | undefined;
  resolve(result: ElicitResult): void;
}

type ChatCall = (input: ChatInput) => Promise<unknown>;

interface Running {
  sessionId: string;
  /** The chat stream the card is announced on; without one the page finds it through GET pending. */
  sse?: SseSink | undefined;
}

export interface McpElicitation {
  /** Wrap the kit's runtime so an answered elicitation card goes back to its MCP server, not to the run. */
  around<R extends RunHost>(factory: RuntimeFactory<R>): RuntimeFactory<R>;
  /** Install the elicitation handler on `client` and declare form elicitation; call before `client.connect`. */
  attach(client: Client): void;
  /** Run one MCP call for `session`: an elicitation arriving meanwhile is shown on its stream. */
  during<T>(client: Client, session: Running, call: () => Promise<T>): Promise<T>;
}

export function mcpElicitation(options: McpElicitationOptions = {}): McpElicitation {
  const { locale = 'zh', onDeclined = (reason) => console.warn(`[ask-user-kit mcp] elicitation declined: ${reason}`) } = options;
  const waiters = new Map<string, Waiter>();
  const running = new WeakMap<Client, Running>();
  const turns = new WeakMap<Client, Promise<unknown>>();
  let core: RuntimeCore | undefined;

  const decline = (reason: string): ElicitResult => {
    onDeclined(reason);
    return { action: 'decline' };
  };

  async function handle(client: Client, params: Record<string, unknown>, signal: AbortSignal): Promise<ElicitResult> {
    const session = running.get(client);
    if (!session || !core) return decline('no session is running a call on this MCP client');
    const message = String(params.message ?? '');
    const mapped =
      params.mode === 'url'
        ? linkFromElicitation(message, params.url, locale)
        : formFromElicitation(message, params.requestedSchema, locale);
    if (!mapped.ok) return decline(mapped.reason);
    const toolCallId = `mcp_${randomBytes(12).toString('base64url')}`;
    // The run that made the call holds its session: no other card of the session is open.
    const { record } = await core.ask(mapped.form, {
      sessionId: session.sessionId,
      toolCallId,
      ...(session.sse ? { sse: session.sse } : {}),
      noneOpen: true,
    });
    const relay = session.sse instanceof RelaySink ? session.sse : undefined;
    // The run waits in this call for the user: a page reload must not stop it (relay-sink.ts).
    const letGo = relay?.hold();
    return new Promise<ElicitResult>((resolve) => {
      const settle = (result: ElicitResult) => {
        waiters.delete(record.requestId);
        letGo?.();
        resolve(result);
      };
      waiters.set(record.requestId, { plan: mapped.plan, relay, resolve: settle });
      // The server gave up (or the connection went): nothing will read the answer, so the card closes.
      signal.addEventListener(
        'abort',
        () => {
          settle({ action: 'cancel' });
          void core?.supersede(session.sessionId).catch(() => undefined);
        },
        { once: true },
      );
    });
  }

  async function answer({ record, answer: given, sse }: ResumeContext): Promise<void> {
    const waiter = waiters.get(record.requestId)!;
    // The page that opened the run is gone (a reload): the run goes on in this answer's stream.
    const handedOver = waiter.relay?.orphaned ? waiter.relay.handOver(sse) : undefined;
    if (given.cancelled) waiter.resolve({ action: 'decline' });
    else if (record.form.url !== undefined) waiter.resolve({ action: 'accept' });
    else waiter.resolve({ action: 'accept', content: contentFromAnswers(waiter.plan, given.answers ?? []) });
    if (handedOver) return handedOver;
    // The run goes on in the chat stream that made the MCP call; this stream only confirms the answer.
    sse.send('done', { reason: given.cancelled ? 'cancelled' : 'completed' });
  }

  return {
    around(factory) {
      return (given) => {
        core = given;
        const inner = factory(given);
        const host: RunHost = {
          isResumable: (record) => (waiters.has(record.requestId) ? Promise.resolve(true) : inner.isResumable(record)),
          resume: (ctx) => (waiters.has(ctx.record.requestId) ? answer(ctx) : relayed(ctx.sse, (sse) => inner.resume({ ...ctx, sse }))),
          closed: (ctx: ClosedContext) => {
            const waiter = waiters.get(ctx.record.requestId);
            if (!waiter) return inner.closed(ctx);
            waiter.resolve({ action: 'cancel' });
            return Promise.resolve();
          },
        };
        const wrapped = { ...inner, ...host };
        // The runtime's own `chat({ sse, … })` (the loop's, the AI SDK runtime's) runs on a relay too.
        const chat = (inner as { chat?: unknown }).chat;
        if (typeof chat === 'function') {
          (wrapped as unknown as { chat: ChatCall }).chat = (input) => relayedChat(input, (given) => (chat as ChatCall).call(inner, given));
        }
        return wrapped;
      };
    },
    attach(client) {
      client.registerCapabilities({ elicitation: { form: {}, url: {} } });
      client.setRequestHandler(ElicitRequestSchema, (request, extra) =>
        handle(client, request.params as Record<string, unknown>, extra.signal),
      );
    },
    during(client, session, call) {
      const previous = turns.get(client) ?? Promise.resolve();
      const mine = previous
        .catch(() => undefined)
        .then(async () => {
          running.set(client, session);
          try {
            return await call();
          } finally {
            running.delete(client);
          }
        });
      turns.set(client, mine);
      return mine;
    },
  };
}
