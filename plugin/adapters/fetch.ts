/**
 * Fetch API (`Request → Response`): the kit's routes and chat stream for any host that speaks it —
 * Hono, Next.js route handlers, Bun, Deno, Cloudflare-style workers.
 *
 *   const routes = fetchRoutes(kit);
 *   export async function POST(request: Request) { return (await routes(request)) ?? new Response(null, { status: 404 }); }
 */
import type { AskUserKit } from '../core/ask-user-kit.js';
import type { SseSink } from '../core/host.js';
import type { RouteRequest } from '../core/routes.js';
import { changesState, crossSiteError, type SameOriginOptions } from '../core/same-origin.js';
import type { OpenSseOptions } from '../core/sse-format.js';
import { openWebSse } from '../core/web-sse.js';
import { readRequestJson } from './json-request.js';
import { oneOrAll } from './request-shape.js';

export { readRequestJson } from './json-request.js';

function routeRequest(request: Request, url: URL): RouteRequest {
  return {
    method: request.method,
    path: url.pathname,
    query: (name) => oneOrAll(url.searchParams.getAll(name)),
    header: (name) => request.headers.get(name) ?? undefined,
    ownOrigin: url.origin,
    readJson: () => readRequestJson(request),
  };
}

/** A JSON answer in the kit's words. */
const json = (status: number, headers: Readonly<Record<string, string>>, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { ...headers, 'Content-Type': 'application/json; charset=utf-8' } });

/**
 * A handler for the kit's two routes: a `Response` for them, `undefined` for any other path. `ctx` is
 * what `authorize` receives (default: the request). Throws now when the kit has no `authorize` policy.
 */
export function fetchRoutes<Ctx = Request>(kit: AskUserKit<Ctx>): (request: Request, ctx?: Ctx) => Promise<Response | undefined> {
  const serve = kit.serveRoutes();
  return async (request, ctx = request as unknown as Ctx) => {
    // A streamed answer is returned as soon as the stream opens; the run goes on writing into it.
    let opened!: (response: Response) => void;
    const stream = new Promise<Response>((resolve) => (opened = resolve));
    const work = serve(routeRequest(request, new URL(request.url)), ctx, () => {
      const { sink, response } = openWebSse(kit.sseOptions);
      opened(response);
      return sink;
    });
    const first = await Promise.race([work.then((result) => ({ result })), stream.then((response) => ({ response }))]);
    if ('response' in first) {
      // The routes end the stream themselves, whatever the run does; only a bug could still throw here.
      work.catch((err: unknown) => console.error('[ask-user-kit]', err));
      return first.response;
    }
    const { result } = first;
    if (result === undefined || result === 'streamed') return result === 'streamed' ? stream : undefined;
    return json(result.status, result.headers, result.body);
  };
}

/** A chat stream for the host's own route: write on `sink`, return `response`. */
export function webSse(kit: Pick<AskUserKit, 'sseOptions'>, options: OpenSseOptions = {}): { sink: SseSink; response: Response } {
  return openWebSse({ ...kit.sseOptions, ...options });
}

/** The cross-site rule for the host's own routes: a 403 `forbidden` Response, or undefined to go on. */
export function crossSiteRefusal(request: Request, options: SameOriginOptions = {}): Response | undefined {
  if (!changesState(request.method)) return undefined;
  const err = crossSiteError(
    request.headers.get('origin') ?? undefined,
    request.headers.get('sec-fetch-site') ?? undefined,
    new URL(request.url).origin,
    options.allowedOrigins,
  );
  if (!err) return undefined;
  return json(err.status, {}, err.toBody());
}
