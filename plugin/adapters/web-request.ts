/**
 * What the Fetch and Hono adapters share: a web `Request` as the routes read it, and running one of the
 * kit's handlers on it, where a stream is answered as soon as it opens and the run goes on writing into
 * it. How the `Response` is built is the adapter's: Hono's keeps the headers a host set on its context.
 */
import type { AskUserKit } from '../core/ask-user-kit.js';
import type { SseSink } from '../core/host.js';
import type { RouteRequest, RouteResult } from '../core/routes.js';
import { openWebSse, type WebStreamResponse } from '../core/web-sse.js';
import { readRequestJson } from './json-request.js';
import { oneOrAll } from './request-shape.js';

/** How an adapter builds its responses: a JSON reply, and the stream's. */
export interface WebResponder {
  json(status: number, headers: Readonly<Record<string, string>>, body: unknown): Response;
  stream: WebStreamResponse;
}

const JSON_TYPE = { 'Content-Type': 'application/json; charset=utf-8' } as const;

/** Plain `Response`s, for hosts with no context of their own. */
export const plainResponder: WebResponder = {
  json: (status, headers, body) =>
    // 204 (§11: nothing to replay) may carry no body: a Response refuses one.
    status === 204
      ? new Response(null, { status, headers })
      : new Response(JSON.stringify(body), { status, headers: { ...headers, ...JSON_TYPE } }),
  stream: (body, status, headers) => new Response(body, { status, headers }),
};

/** The headers of a JSON reply, Content-Type included. */
export const jsonHeaders = (headers: Readonly<Record<string, string>>) => ({ ...headers, ...JSON_TYPE });

/**
 * The server's own origin as the browser addressed it: the request URL's scheme with the `Host` header the
 * browser sent. A host's framework may build `request.url` on another name (Next.js's `next start` gives
 * `localhost` whatever the browser used); `Host` is the browser's, which a page on another site cannot set.
 */
export function ownOriginOf(request: Request, url = new URL(request.url)): string {
  const host = request.headers.get('host');
  return host ? `${url.protocol}//${host}` : url.origin;
}

export function webRouteRequest(request: Request): RouteRequest {
  const url = new URL(request.url);
  return {
    method: request.method,
    path: url.pathname,
    query: (name) => oneOrAll(url.searchParams.getAll(name)),
    header: (name) => request.headers.get(name) ?? undefined,
    ownOrigin: ownOriginOf(request, url),
    readJson: () => readRequestJson(request),
  };
}

/** One handler on one request: its JSON reply, its stream once opened, or undefined when the path is not the kit's. */
export async function respondWeb(
  kit: Pick<AskUserKit, 'sseOptions'>,
  request: Request,
  responder: WebResponder,
  serve: (req: RouteRequest, openSse: () => SseSink) => Promise<RouteResult>,
): Promise<Response | undefined> {
  let opened!: (response: Response) => void;
  const stream = new Promise<Response>((resolve) => (opened = resolve));
  const work = serve(webRouteRequest(request), () => {
    const { sink, response } = openWebSse({ ...kit.sseOptions, respond: responder.stream });
    opened(response);
    return sink;
  });
  const first = await Promise.race([work.then((result) => ({ result })), stream.then((response) => ({ response }))]);
  if ('response' in first) {
    // The handlers end the stream themselves, whatever the run does; only a bug could still throw here.
    work.catch((err: unknown) => console.error('[ask-user-kit]', err));
    return first.response;
  }
  const { result } = first;
  if (result === undefined || result === 'streamed') return result === 'streamed' ? stream : undefined;
  if (result.html !== undefined) return new Response(result.html, { status: result.status, headers: result.headers });
  return responder.json(result.status, result.headers, result.body);
}
