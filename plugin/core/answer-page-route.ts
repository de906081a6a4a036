/**
 * `GET /answer/<token>` (contract §13): the page of a one-card answer link, at the root of the host's
 * public origin whatever the routes' prefix. 200 with the card while it waits; 410 once it closed,
 * saying why; 404 for a token that opens nothing. The token is checked against its stored hash and never
 * logged.
 */
import { userInputRequiredOf } from './coordinator.js';
import { answerPage, answerPageHeaders, closedPage, invalidPage, newNonce, type ClosedReason } from './answer-page.js';
import { storeError } from './route-errors.js';
import type { JsonReply, RouteRequest, RoutesDeps } from './route-types.js';
import { isPastExpiry } from '../store/types.js';

export const ANSWER_PATH = '/answer/';

export function answerPageRoute(deps: RoutesDeps) {
  const { store, now } = deps;
  const continuePath = `${deps.prefix.replace(/\/+$/, '')}/chat/continue`;
  return async function answerLinkPage(req: RouteRequest): Promise<JsonReply | undefined> {
    const pages = deps.answerLinks;
    if (!pages) return undefined;
    const token = req.path.slice(ANSWER_PATH.length);
    const nonce = newNonce();
    const headers = answerPageHeaders(nonce, pages.widgetScript);
    const reply = (status: number, html: string): JsonReply => ({ status, headers, body: null, html });
    const target = await pages.links.resolve(token).catch(storeError);
    if (!target) return reply(404, invalidPage(pages.locale));
    const record = await store.get(target.requestId).catch(storeError);
    if (!record || record.sessionId !== target.sessionId) return reply(404, invalidPage(pages.locale));
    if (record.status !== 'pending' || isPastExpiry(record, now())) {
      const status = record.resolution?.status ?? 'expired';
      return reply(410, closedPage(pages.locale, status as ClosedReason));
    }
    const page = answerPage(
      { request: userInputRequiredOf(record), token, continuePath, widgetScript: pages.widgetScript, locale: pages.locale },
      nonce,
    );
    return reply(200, page);
  };
}
