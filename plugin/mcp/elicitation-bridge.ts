/**
 * Contract §10: a host that is an MCP client hands each `elicitation/create` of an MCP server to the user
 * through the same store, event, card and continue route as `ask_user`, and answers the server as the card
 * was answered: `accept` with typed content, `decline` (the card's cancel, or a request the card cannot
 * show), or `cancel` (expired, superseded, or the run stopped). Exactly once, as any card: the continue
 * route's claim decides. In URL mode the card is a link: opening it answers `accept`.
 *
 * An MCP request lives in the process holding the connection, so the waiting request is kept in memory:
 * after a restart the card is still shown, but says honestly that it cannot be answered (`resumable:
 * false`). A page reload is no restart: the run waiting in the MCP call goes on, and the answer from the
 * reloaded page carries what it says next (relay-sink.ts).
 *
 * MCP gives the client no link from an elicitation to the tool call that caused it (the SDK's client
 * transports hand a server's request over without the stream it came on), so the elicitation belongs to
 * the call running on that client: calls on one client take turns (`during`). A client per session
 * (session-clients.ts) keeps one user's open card from holding up every other user's calls.
 */
import { randomBytes } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { DEFAULT_REQUEST_TIMEOUT_MSEC } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolRequest, ElicitResult, ProgressToken } from '@modelcontextprotocol/sdk/types.js';
import { interactionResolvedOf, type Coordinator } from '../core/coordinator.js';
import { RunStream } from '../core/run-stream.js';
import type { InteractionRecord } from '../store/types.js';
import type { ClosedContext, ResumeContext, RunHost, SseSink } from '../core/host.js';
import type { ChatInput, RuntimeFactory } from '../core/runtime.js';
import { enterChat } from '../runs/run-engine.js';
import { publicFailure, sendFailure } from '../runs/failures.js';
import { CallTimer, MAX_TIMER_MS } from './call-timer.js';
import { contentFromAnswers, type PropertyPlan } from './elicitation-form.js';
import { installElicitationHandler, readElicitation, type ElicitExtra } from './elicitation-request.js';
import { RelaySink, relayed, relayedChat } from './relay-sink.js';

export interface McpElicitationOptions {
  /** Language of the Yes/No labels of a boolean. @default 'zh' */
  locale?: 'zh' | 'en';
  /** An elicitation answered `decline` without showing anything (a schema outside §10's shapes, no session running); the reason holds no value the server sent. @default console.warn */
  onDeclined?: (reason: string) => void;
  /**
   * While a card is open, a progress notification goes to the MCP server this often when its request
   * carries a progress token: a server that resets its request timeout on progress then waits as long as
   * the card does. @default 15000
   */
  keepAliveMs?: number;
  /** How long a new message waits for the run it stops (the run whose MCP card it closes) to end. @default 5000 */
  supersedeWaitMs?: number;
}

/** The session an MCP call runs for, and the chat stream a card of it is announced on. */
export interface McpSession {
  sessionId: string;
  /** Without one the page finds the card through GET pending. */
  sse?: SseSink | undefined;
}

export interface McpCallOptions {
  /**
   * How long the call may wait for its result while no card of it is open; an open card stops the clock
   * (the card's expiry bounds that wait), and progress from the server starts it again. @default 60000, the SDK's default
   */
  timeoutMs?: number;
  /** Aborts the call (the run stopped): the SDK tells the server `notifications/cancelled`. */
  signal?: AbortSignal;
}

export type McpCallResult = Awaited<ReturnType<Client['callTool']>>;

export interface McpElicitation {
  /** Wrap the kit's runtime so an answered elicitation card goes back to its MCP server, not to the run. */
  around<R extends RunHost>(factory: RuntimeFactory<R>): RuntimeFactory<R>;
  /** Install the elicitation handler on `client` and declare both modes (form with `applyDefaults`); call before `client.connect`. */
  attach(client: Client): void;
  /** Run one MCP call for `session`: an elicitation arriving meanwhile is shown on its stream. */
  during<T>(client: Client, session: McpSession, call: () => Promise<T>): Promise<T>;
  /** `client.callTool` inside `during`, with a timeout that does not run while a card of the call is open. */
  callTool(client: Client, session: McpSession, params: CallToolRequest['params'], options?: McpCallOptions): Promise<McpCallResult>;
}

interface Waiter {
  sessionId: string;
  /** How to type the answers; empty for a link card, whose accept carries no content. */
  plan: PropertyPlan[];
  /** The stream of the run that made the call, when the runtime was wrapped by `around`. */
  relay: RelaySink | undefined;
  /** The run's own stream (contract §11): it outlives its page, which picks it up; a new message stops it. */
  stream?: RunStream;
  resolve(result: ElicitResult): void;
}

/** A call in its turn on a client: its session, and its clock when it has one (`callTool`). */
interface Running extends McpSession {
  timer?: CallTimer;
}

type ChatCall = (input: ChatInput) => Promise<unknown>;

export class ElicitationBridge implements McpElicitation {
  readonly #locale: 'zh' | 'en';
  readonly #onDeclined: (reason: string) => void;
  readonly #keepAliveMs: number;
  readonly #supersedeWaitMs: number;
  /** Open cards of this process, by requestId. */
  readonly #waiters = new Map<string, Waiter>();
  readonly #running = new WeakMap<Client, Running>();
  readonly #turns = new WeakMap<Client, Promise<unknown>>();
  #coordinator: Coordinator | undefined;
  /** The wrapped runtime's stop and liveness (§11), for a new message that supersedes a card and for followers. */
  #inner: Pick<RunHost, 'stop' | 'inFlight'> = {};

  constructor(options: McpElicitationOptions = {}) {
    const {
      locale = 'zh',
      onDeclined = (reason) => console.warn(`[ask-user-kit mcp] elicitation declined: ${reason}`),
      keepAliveMs = 15_000,
      supersedeWaitMs = 5_000,
    } = options;
    this.#locale = locale;
    this.#onDeclined = onDeclined;
    this.#keepAliveMs = keepAliveMs;
    this.#supersedeWaitMs = supersedeWaitMs;
  }

  around<R extends RunHost>(factory: RuntimeFactory<R>): RuntimeFactory<R> {
    return (coordinator) => {
      this.#coordinator = coordinator;
      const inner = factory(coordinator);
      this.#inner = inner;
      const host: RunHost = {
        isResumable: (record) => (this.#waiters.has(record.requestId) ? Promise.resolve(true) : inner.isResumable(record)),
        resume: (ctx) =>
          this.#waiters.has(ctx.record.requestId)
            ? this.#answer(ctx)
            : // A run on a RunStream (§11) outlives its page by itself: no relay needed.
              ctx.sse instanceof RunStream
              ? inner.resume(ctx)
              : relayed(ctx.sse, (sse) => inner.resume({ ...ctx, sse })),
        // The stop button (§11) closes an open MCP card as cancelled too, and its server gets `cancel`.
        ...(inner.stop ? { stop: (sessionId: string) => this.#stop(sessionId, inner.stop!.bind(inner)) } : {}),
        // An MCP card's answer is no step of a paused run: its stream follows the run that waits (#answer).
        ...(inner.streamOf
          ? {
              streamOf: (record: InteractionRecord) =>
                this.#waiters.has(record.requestId) ? Promise.resolve(undefined) : inner.streamOf!(record),
            }
          : {}),
        closed: (ctx: ClosedContext) => {
          const waiter = this.#waiters.get(ctx.record.requestId);
          if (!waiter) return inner.closed(ctx);
          waiter.resolve({ action: 'cancel' });
          return Promise.resolve();
        },
      };
      const wrapped = { ...inner, ...host };
      // The runtime's own `chat({ sse, … })` (the loop's, the AI SDK runtime's) runs on a relay too.
      const chat = (inner as { chat?: unknown }).chat;
      if (typeof chat === 'function') {
        const run: ChatCall = (given) => (chat as ChatCall).call(inner, given);
        (wrapped as unknown as { chat: ChatCall }).chat = (input) => this.#chat(run, input);
      }
      return wrapped;
    };
  }

  attach(client: Client): void {
    client.registerCapabilities({ elicitation: { form: { applyDefaults: true }, url: {} } });
    installElicitationHandler(client, (request, extra) => this.#handle(client, request, extra));
  }

  during<T>(client: Client, session: McpSession, call: () => Promise<T>): Promise<T> {
    return this.#inTurn(client, session, () => call());
  }

  callTool(client: Client, session: McpSession, params: CallToolRequest['params'], options: McpCallOptions = {}): Promise<McpCallResult> {
    const { timeoutMs = DEFAULT_REQUEST_TIMEOUT_MSEC, signal } = options;
    return this.#inTurn(client, session, async (running) => {
      // The clock starts with the turn: a call queued behind a card of its session is not late.
      const timer = new CallTimer(timeoutMs);
      running.timer = timer;
      try {
        return await client.callTool(params, undefined, {
          signal: signal ? AbortSignal.any([signal, timer.signal]) : timer.signal,
          // The SDK's own clock counts from the request, card or not: ours decides instead.
          timeout: MAX_TIMER_MS,
          onprogress: () => timer.touch(),
        });
      } finally {
        timer.stop();
      }
    });
  }

  /** Calls on one client take turns: an elicitation arriving on it belongs to the call in its turn. */
  #inTurn<T>(client: Client, session: McpSession, call: (running: Running) => Promise<T>): Promise<T> {
    const previous = this.#turns.get(client) ?? Promise.resolve();
    const mine = previous
      .catch(() => undefined)
      .then(async () => {
        const running: Running = { ...session };
        this.#running.set(client, running);
        try {
          return await call(running);
        } finally {
          this.#running.delete(client);
        }
      });
    this.#turns.set(client, mine);
    return mine;
  }

  #decline(reason: string): ElicitResult {
    this.#onDeclined(reason);
    return { action: 'decline' };
  }

  async #handle(client: Client, request: unknown, extra: ElicitExtra): Promise<ElicitResult> {
    const read = readElicitation(request, this.#locale);
    if (!read.ok) return this.#decline(read.reason);
    const running = this.#running.get(client);
    const coordinator = this.#coordinator;
    if (!running || !coordinator) return this.#decline('no session is running a call on this MCP client');
    const { mapped } = read;
    const toolCallId = `mcp_${randomBytes(12).toString('base64url')}`;
    let requestId: string;
    try {
      // The run that made the call holds its session: no other card of the session is open.
      ({
        record: { requestId },
      } = await coordinator.ask(mapped.form, {
        sessionId: running.sessionId,
        toolCallId,
        ...(running.sse ? { sse: running.sse } : {}),
        noneOpen: true,
      }));
    } catch (err) {
      return this.#decline(`the card could not be stored (${publicFailure(err).code})`);
    }
    const relay = running.sse instanceof RelaySink ? running.sse : undefined;
    // On a run stream (§11) the run outlives its page by itself.
    const stream = running.sse instanceof RunStream ? running.sse : undefined;
    // The run waits in this call for the user: a page reload must not stop it (relay-sink.ts), nor the call's clock.
    const letGo = relay?.hold();
    const resume = running.timer?.pause();
    const beat = read.progressToken !== undefined ? this.#keepAlive(extra, read.progressToken) : undefined;
    return new Promise<ElicitResult>((resolve) => {
      const settle = (result: ElicitResult) => {
        if (!this.#waiters.delete(requestId)) return;
        clearInterval(beat);
        letGo?.();
        resume?.();
        resolve(result);
      };
      this.#waiters.set(requestId, {
        sessionId: running.sessionId,
        plan: mapped.plan,
        relay,
        resolve: settle,
        ...(stream ? { stream } : {}),
      });
      // The server gave up (or the connection went): nothing will read the answer, so the card closes.
      const gone = () => {
        settle({ action: 'cancel' });
        void coordinator.supersede(running.sessionId).catch(() => undefined);
      };
      if (extra.signal.aborted) gone();
      else extra.signal.addEventListener('abort', gone, { once: true });
    });
  }

  /** Tells the server the request is alive while the card waits (it may reset its timeout on progress). */
  #keepAlive(extra: ElicitExtra, progressToken: ProgressToken): ReturnType<typeof setInterval> {
    let progress = 0;
    const beat = setInterval(() => {
      void extra
        .sendNotification({ method: 'notifications/progress', params: { progressToken, progress: ++progress } })
        .catch(() => undefined);
    }, this.#keepAliveMs);
    beat.unref?.();
    return beat;
  }

  async #answer({ record, answer: given, sse }: ResumeContext): Promise<void> {
    const waiter = this.#waiters.get(record.requestId)!;
    // The page that opened the run is gone (a reload): the run goes on in this answer's stream.
    // (A run on its own stream, §11, needs none of this: the page picks that stream up with GET /api/chat/stream.)
    const handedOver = waiter.relay?.orphaned ? waiter.relay.handOver(sse) : undefined;
    if (given.cancelled) waiter.resolve({ action: 'decline' });
    else if (record.form.url !== undefined) waiter.resolve({ action: 'accept' });
    else waiter.resolve({ action: 'accept', content: contentFromAnswers(waiter.plan, given.answers ?? []) });
    if (handedOver) return handedOver;
    // The run goes on in the chat stream that made the MCP call; this stream only confirms the answer.
    sse.send('done', { reason: given.cancelled ? 'cancelled' : 'completed' });
  }

  /**
   * The stop button while a run waits in an MCP call on a card: the card is claimed as cancelled (in the
   * run's log before its end), its server gets `cancel`, and the run stops in the same tick, so the call's
   * return cannot lead to another model call.
   */
  async #stop(sessionId: string, stop: (sessionId: string) => Promise<{ stopped: boolean }>): Promise<{ stopped: boolean }> {
    const card = this.#openCard(sessionId);
    const cancelled = card?.stream ? await this.#coordinator?.cancelOpen(sessionId) : undefined;
    if (card?.stream && cancelled) {
      card.stream.send('interaction_resolved', interactionResolvedOf(cancelled.record, cancelled.record.resolution!, cancelled.answer));
      card.resolve({ action: 'cancel' });
    }
    const result = await stop(sessionId);
    return { stopped: result.stopped || cancelled !== undefined };
  }

  /** The open card of `sessionId` in this process, if any. */
  #openCard(sessionId: string): Waiter | undefined {
    for (const waiter of this.#waiters.values()) if (waiter.sessionId === sessionId) return waiter;
    return undefined;
  }

  /**
   * A new message while an MCP card of the session is open (§6): the card is superseded, the MCP server
   * answered `cancel`, the run that waited in the call stopped, then the message runs. The runtime alone
   * would refuse it (`session_busy`): the waiting run holds the session, inside the MCP call.
   */
  async #chat(run: ChatCall, input: ChatInput): Promise<unknown> {
    const coordinator = this.#coordinator;
    const card = typeof input.sessionId === 'string' ? this.#openCard(input.sessionId) : undefined;
    if (!coordinator || !(card?.relay || card?.stream)) return relayedChat(input, run);
    // The door first, as the runtime's chat has it: a stranger must not close the owner's card. The
    // runtime's chat checks again (authorize runs twice); a refusal is written once, here.
    const entered = await enterChat(coordinator, input);
    if (!entered) return;
    const { sessionId, sse } = entered;
    const open = this.#openCard(sessionId);
    if (open?.stream) {
      try {
        await this.#stopWaiting(coordinator, sessionId, sse);
      } catch (err) {
        const { code, message } = publicFailure(err);
        sendFailure(sse, code, message);
        sse.end();
        return;
      }
    } else if (open?.relay) {
      try {
        await this.#supersede(coordinator, sessionId, open.relay, sse);
      } catch (err) {
        const { code, message } = publicFailure(err);
        sendFailure(sse, code, message);
        sse.end();
        return;
      }
    }
    return relayedChat({ ...input, sse }, run);
  }

  /**
   * The run on a run stream (§11) that waits in an MCP call: it stops (its log ends with `done cancelled`)
   * while its card closes as superseded (the server gets `cancel`); the new message runs once it has ended.
   */
  async #stopWaiting(coordinator: Coordinator, sessionId: string, sse: SseSink): Promise<void> {
    const stopping = this.#inner.stop?.call(this.#inner, sessionId);
    const closed = await coordinator.supersede(sessionId);
    if (closed?.resolution) sse.send('interaction_resolved', interactionResolvedOf(closed, closed.resolution));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.#supersedeWaitMs)));
    await Promise.race([stopping, waited]);
    clearTimeout(timer);
  }

  async #supersede(coordinator: Coordinator, sessionId: string, relay: RelaySink, sse: SseSink): Promise<void> {
    // The old run stops first, so the card's `cancel` cannot let it go on to another model call; its
    // stream ends with its own `done` before the new run says anything (§11).
    relay.send('done', { reason: 'cancelled' });
    relay.end();
    const closed = await coordinator.supersede(sessionId);
    if (closed?.resolution) sse.send('interaction_resolved', interactionResolvedOf(closed, closed.resolution));
    // A tool that ignores the abort ends when the server has its `cancel`; one that never ends leaves
    // the session busy, and the new message says so.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.#supersedeWaitMs)));
    await Promise.race([relay.over, waited]);
    clearTimeout(timer);
  }
}

export function mcpElicitation(options: McpElicitationOptions = {}): McpElicitation {
  return new ElicitationBridge(options);
}
