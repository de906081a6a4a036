/** What the framework-free routes read and answer, and what they are built from; each adapter speaks this. */
import type { AuditLogger } from './audit.js';
import type { Coordinator } from './coordinator.js';
import type { RunHost, SseSink } from './host.js';
import type { PendingStore } from '../store/types.js';
import type { AnswerLinks } from '../notify/answer-links.js';
import type { WebPushNotifier } from '../notify/push/web-push-notifier.js';

/** An HTTP request as the routes read it, whatever framework received it. */
export interface RouteRequest {
  readonly method: string;
  /** The path without the query string. */
  readonly path: string;
  /** A query parameter: its one value, every value when it repeats, or undefined. */
  query(name: string): string | readonly string[] | undefined;
  /** A request header by its lower-case name. */
  header(name: string): string | undefined;
  /** The server's own origin as the client addressed it (`protocol://host`), for the cross-site rule. */
  readonly ownOrigin: string;
  /** The JSON body within 64 KiB, or an AskUserError `invalid_request` (400, 413 or 415). */
  readJson(): Promise<unknown>;
}

/** What the adapter gives one request: its caller's authorization and a stream on its response. */
export interface RouteIo {
  /** True when this request's caller may act on `sessionId`. */
  authorized(sessionId: string): boolean | Promise<boolean>;
  /** Start the SSE response (status 200 and docs/protocol.md §3's headers). */
  openSse(): SseSink;
}

/** A JSON answer for the adapter to write; with `html`, a page instead (its Content-Type among `headers`). */
export interface JsonReply {
  status: number;
  headers: Readonly<Record<string, string>>;
  body: unknown;
  /** An HTML page to write as it is (an answer link's page, §13); `body` is then ignored. */
  html?: string;
}

/** The outcome of one request: a JSON reply, a stream already written through `io.openSse`, or not ours. */
export type RouteResult = JsonReply | 'streamed' | undefined;

export type RouteHandler = (req: RouteRequest, io: RouteIo) => Promise<RouteResult>;

export interface RoutesDeps {
  store: PendingStore;
  host: RunHost;
  coordinator: Coordinator;
  audit: AuditLogger;
  prefix: string;
  /** Front-end origins besides the server's own that may POST continue. */
  allowedOrigins: readonly string[];
  now: () => number;
  /** Errors no request waits for (a resume that threw after the claim). */
  onError: (err: unknown) => void;
  /** One-card answer links (§13), when the kit has them on. */
  answerLinks?: AnswerLinkPages;
  /** Web Push (§13): the subscription routes and the VAPID public key, when the kit has it on. */
  push?: PushRouteService;
}

/** What the push routes (push-route.ts) need of the Web Push notifier. */
export type PushRouteService = Pick<WebPushNotifier, 'subscribe' | 'unsubscribe' | 'publicKey'>;

/** What the routes need of answer links: the card a token opens, its consumption, and how its page loads the card. */
export interface AnswerLinkPages {
  links: AnswerLinks;
  /** The script that defines `<ask-user-card>` on the page (the standalone bundle's URL). */
  widgetScript: string;
  /** The card's language on the page. */
  locale: 'zh-CN' | 'en';
}
