/**
 * How an `elicitation/create` request reaches the bridge. The SDK's `Client.setRequestHandler` parses the
 * request with its own schema before any handler runs, so a schema outside its shapes (a nested object)
 * went back to the MCP server as JSON-RPC error -32603 with the whole zod report in the message. §10 says
 * such a request is answered `decline`, unseen, and logged: the handler is installed with a schema that
 * takes any params, and this module reads and judges them itself.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Protocol, type RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  ElicitRequestFormParamsSchema,
  ElicitRequestURLParamsSchema,
  type ClientNotification,
  type ClientRequest,
  type ElicitResult,
  type ProgressToken,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { formFromElicitation, linkFromElicitation, type MappedForm } from './elicitation-form.js';

/** Any `elicitation/create`, whatever its params: judging them is ours. */
const AnyElicitRequest = z.looseObject({ method: z.literal('elicitation/create'), params: z.unknown().optional() });

export type ElicitExtra = RequestHandlerExtra<ClientRequest, ClientNotification>;
type Handler = (request: z.infer<typeof AnyElicitRequest>, extra: ElicitExtra) => Promise<ElicitResult>;

/**
 * Installs `handler` for `elicitation/create` on `client` past the Client's own wrapper (its base class's
 * registration), so that every request reaches it. The Client's capability check still runs (the bridge
 * declares both modes first); what the wrapper did after the handler, the bridge does itself: its results
 * are typed as the schema says, and `contentFromAnswers` fills the defaults `applyDefaults` promises.
 */
export function installElicitationHandler(client: Client, handler: Handler): void {
  const register = Protocol.prototype.setRequestHandler as unknown as (this: Client, schema: typeof AnyElicitRequest, h: Handler) => void;
  register.call(client, AnyElicitRequest, handler);
}

/** A request the card can show: its mapped form, and the token to report progress on, if the server gave one. */
export type ReadElicitation =
  { ok: true; mapped: Extract<MappedForm, { ok: true }>; progressToken?: ProgressToken } | { ok: false; reason: string };

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The request as a card, or why it cannot be one. The mapping speaks first (its reasons name the
 * property); what it lets through must still be a valid request of the protocol. A reason never holds a
 * value the server sent (a link may carry a token, a default may be personal): paths and kinds only.
 */
export function readElicitation(request: unknown, locale: 'zh' | 'en'): ReadElicitation {
  const params = isObj(request) && isObj(request.params) ? request.params : undefined;
  if (!params) return { ok: false, reason: 'the request has no params object' };
  const mode = params.mode ?? 'form';
  if (mode !== 'form' && mode !== 'url') return { ok: false, reason: 'the request mode is neither form nor url' };
  const message = typeof params.message === 'string' ? params.message : '';
  const mapped =
    mode === 'url' ? linkFromElicitation(message, params.url, locale) : formFromElicitation(message, params.requestedSchema, locale);
  if (!mapped.ok) return mapped;
  // The mode's own schema, not the union: its issues name the field instead of "no branch matched".
  const valid = (mode === 'url' ? ElicitRequestURLParamsSchema : ElicitRequestFormParamsSchema).safeParse(params);
  if (!valid.success) {
    const where = [...new Set(valid.error.issues.map((i) => `${['params', ...i.path].join('.')} (${i.code})`))].slice(0, 5);
    return { ok: false, reason: `the request is not a valid elicitation/create: ${where.join(', ')}` };
  }
  const token = isObj(params._meta) ? params._meta.progressToken : undefined;
  return typeof token === 'string' || typeof token === 'number' ? { ok: true, mapped, progressToken: token } : { ok: true, mapped };
}
