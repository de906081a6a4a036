/**
 * Contract §10: a host that is an MCP client hands each `elicitation/create` of an MCP server to the user
 * through the same store, event, card and continue route as `ask_user`, and answers the server as the card
 * was answered: `accept` with typed content, `decline` (the card's cancel), or `cancel` (expired,
 * superseded, or the run stopped). Exactly once, as any card: the continue route's claim decides. In URL
 * mode the card is a link: opening it answers `accept` (the server then goes on out of band).
 *
 * An MCP request lives in the process holding the connection, so the waiting request is kept in memory:
 * after a restart the card is still shown, but says honestly that it cannot be answered (`resumable:
 * false`). MCP gives the client no link from an elicitation to the tool call that caused it, so the host
 * runs each MCP tool call inside `during(client, { sessionId, sse }, call)`: calls on one client take turns.
 */
import { randomBytes } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { ClosedContext, ResumeContext, RunHost, SseSink } from '../core/host.js';
import type { RuntimeCore, RuntimeFactory } from '../core/runtime.js';
import { contentFromAnswers, formFromElicitation, linkFromElicitation, type PropertyPlan } from './elicitation-form.js';

export interface McpElicitationOptions {
  /** Language of the Yes/No labels of a boolean. @default 'zh' */
  locale?: 'zh' | 'en';
  /** An elicitation answered `decline` without showing anything (a schema outside §10's shapes, no session running). @default console.warn */
  onDeclined?: (reason: string) => void;
}

interface Waiter {
  /** How to type the answers; empty for a link card, whose accept carries no content. */
  plan: PropertyPlan[];
  resolve(result: ElicitResult): void;
}

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
    return new Promise<ElicitResult>((resolve) => {
      const settle = (result: ElicitResult) => {
        waiters.delete(record.requestId);
        resolve(result);
      };
      waiters.set(record.requestId, { plan: mapped.plan, resolve: settle });
      // The server gave up (or the connection went): nothing will read the answer.
      signal.addEventListener('abort', () => settle({ action: 'cancel' }), { once: true });
    });
  }

  function answer({ record, answer: given, sse }: ResumeContext): Promise<void> {
    const waiter = waiters.get(record.requestId)!;
    if (given.cancelled) waiter.resolve({ action: 'decline' });
    else if (record.form.url !== undefined) waiter.resolve({ action: 'accept' });
    else waiter.resolve({ action: 'accept', content: contentFromAnswers(waiter.plan, given.answers ?? []) });
    // The run goes on in the chat stream that made the MCP call; this stream only confirms the answer.
    sse.send('done', { reason: given.cancelled ? 'cancelled' : 'completed' });
    return Promise.resolve();
  }

  return {
    around(factory) {
      return (given) => {
        core = given;
        const inner = factory(given);
        const host: RunHost = {
          isResumable: (record) => (waiters.has(record.requestId) ? Promise.resolve(true) : inner.isResumable(record)),
          resume: (ctx) => (waiters.has(ctx.record.requestId) ? answer(ctx) : inner.resume(ctx)),
          closed: (ctx: ClosedContext) => {
            const waiter = waiters.get(ctx.record.requestId);
            if (!waiter) return inner.closed(ctx);
            waiter.resolve({ action: 'cancel' });
            return Promise.resolve();
          },
        };
        return { ...inner, ...host };
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
