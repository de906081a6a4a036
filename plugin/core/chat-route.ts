/**
 * `POST /api/chat` as the adapters serve it (`koaChat`, `expressChat`, `honoChat`, `fetchChat`): the
 * cross-site rule, the JSON body, then the runtime's own door (session, message, `authorize`), all
 * before the stream opens, so every refusal is a JSON error with its status. The runtime's `chat`
 * checks the caller itself too, so a host calling it directly is held to the same rule.
 */
import type { AuditLogger } from './audit.js';
import { AskUserError } from './errors.js';
import type { SseSink } from './host.js';
import { auditRefusal } from './route-errors.js';
import type { RouteRequest, RouteResult } from './route-types.js';
import type { ChatInput } from './runtime.js';
import { crossSiteError } from './same-origin.js';

/** A runtime with a chat entry: the plugin's agent loop, the AI SDK runtime, or one of the host's. */
export interface ChatRuntime {
  chat(input: ChatInput): Promise<void>;
}

/** What an adapter calls per chat request: this request, its caller (as `authorize` receives it), and its stream opener. */
export type ServeChat<Ctx> = (req: RouteRequest, caller: Ctx, openSse: () => SseSink) => Promise<RouteResult>;

export interface ChatRouteDeps {
  runtime: ChatRuntime;
  audit: AuditLogger;
  allowedOrigins: readonly string[];
  now: () => number;
}

export function chatRoute<Ctx>({ runtime, audit, allowedOrigins, now }: ChatRouteDeps): ServeChat<Ctx> {
  const refusal = (err: AskUserError, audited: boolean): RouteResult => {
    if (!audited) auditRefusal(audit, now, err);
    return { status: err.status, headers: {}, body: err.toBody() };
  };
  return async function chatRequest(req, caller, openSse) {
    if (req.method !== 'POST') {
      return { status: 405, headers: { Allow: 'POST' }, body: { error: { code: 'invalid_request', message: 'Use POST on this route.' } } };
    }
    let body: unknown;
    try {
      const crossSite = crossSiteError(req.header('origin'), req.header('sec-fetch-site'), req.ownOrigin, allowedOrigins);
      if (crossSite) throw crossSite;
      body = await req.readJson();
    } catch (err) {
      if (err instanceof AskUserError) return refusal(err, false);
      throw err;
    }
    const fields = (typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
    let opened = false;
    try {
      await runtime.chat({
        caller,
        sessionId: fields.sessionId,
        message: fields.message,
        sse: () => {
          opened = true;
          return openSse();
        },
      });
      return 'streamed';
    } catch (err) {
      // The runtime's door audited its own refusal.
      if (!opened && err instanceof AskUserError) return refusal(err, true);
      throw err;
    }
  };
}
