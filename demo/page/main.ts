/**
 * The demo page: a chat on `POST /api/chat` whose questions appear as `<ask-user-card>` inline. Cards
 * submit by themselves through `<ask-user-provider>`; the page reads every stream (chat and continue)
 * with the widget's reader and draws text, cards, tool results and errors. Streams reconnect by themselves
 * (docs/protocol.md §11): the header says so while one is cut off, and the stop button ends the run. After a
 * reload the page picks up a run still in flight with `resumeChat`, else redraws the history and restores
 * the open card from `GET /api/interactions/pending` (an approval card, §12, as any other). A line under the
 * chat names the tools the user allowed for the rest of the session on an approval card.
 *
 * Reaching a user who is away (§13): the "notify me" switch subscribes this browser to Web Push for the
 * session (notify.ts; the service worker is page/sw.ts), a notification's click brings the page to its card
 * (`?card=<requestId>`, or a message from the worker to a tab already open), and with answer links on an
 * open card offers "answer elsewhere" (answer-elsewhere.ts). A card answered elsewhere is noticed while it
 * is shown: the page checks the pending card every few seconds and redraws once it was answered.
 */
import 'ask-user-kit/widget';
import {
  fetchPending,
  resumeChat,
  startChat,
  stopChat,
  type AskUserCard,
  type AskUserConnectionEvent,
  type AskUserContinuedEvent,
  type ChatEventStream,
  type ConnectionState,
  type DoneReason,
} from 'ask-user-kit/widget';
import { PAGE_STRINGS, type PageLang } from './i18n.js';
import { historicReceipt, historyEntries, type SessionItem, type SessionView } from './history.js';
import { CLICK_MESSAGE, keepOn, notifyWanted, pushSupported, turnOff, turnOn, type NotifyState } from './notify.js';
import { answerElsewhere } from './answer-elsewhere.js';

const SESSION_KEY = 'ask-user-demo.session';
const LANG_KEY = 'ask-user-demo.lang';

const $ = <T extends HTMLElement>(sel: string) => document.querySelector(sel) as T;
const log = $<HTMLOListElement>('#log');
const provider = $<HTMLElement & { sessionId?: string; locale?: string }>('ask-user-provider');
const form = $<HTMLFormElement>('#composer');
const input = $<HTMLTextAreaElement>('#message');
const traceBox = $<HTMLElement>('#trace');
const traceLines = $<HTMLPreElement>('#trace-lines');
const allowedLine = $<HTMLElement>('[data-testid="always-allowed"]');
const allowedTools = $<HTMLElement>('[data-testid="always-allowed-tools"]');

const newSessionId = () => `s-${crypto.randomUUID()}`;
// `?session=<id>` opens a given session (handy for a second tab or a test); else the stored one.
let sessionId = new URLSearchParams(location.search).get('session') ?? localStorage.getItem(SESSION_KEY) ?? newSessionId();
localStorage.setItem(SESSION_KEY, sessionId);
let lang: PageLang = localStorage.getItem(LANG_KEY) === 'en' ? 'en' : 'zh';
const s = () => PAGE_STRINGS[lang];
const cards = new Map<string, AskUserCard>();
/** The "answer elsewhere" action of each card still open (§13), removed when the card closes. */
const openActions = new Map<string, HTMLElement>();
/** What the server offers of §13's page actions (`GET /api/features`). */
let features = { answerLinks: false, webPush: false };

function applyLang() {
  document.documentElement.lang = lang === 'zh' ? 'zh-CN' : 'en';
  for (const el of document.querySelectorAll<HTMLElement>('[data-i18n]'))
    el.textContent = s()[el.dataset.i18n as keyof ReturnType<typeof s>];
  for (const el of document.querySelectorAll<HTMLTextAreaElement>('[data-i18n-placeholder]'))
    el.placeholder = s()[el.dataset.i18nPlaceholder as 'placeholder'];
  for (const el of document.querySelectorAll('[data-i18n-label]'))
    el.setAttribute('aria-label', s()[el.getAttribute('data-i18n-label') as keyof ReturnType<typeof s>]);
  showNotifyState(notifyState);
  // The button names the other language in that language; `lang` lets a screen reader say it so.
  $('#lang').lang = lang === 'zh' ? 'en' : 'zh-CN';
  $('[data-testid="session-id"]').textContent = sessionId;
  // The id is cut to fit a phone; the whole of it stays in the DOM (copy) and in the tooltip.
  $('.session').title = sessionId;
  provider.locale = lang === 'zh' ? 'zh-CN' : 'en';
  for (const card of cards.values()) card.locale = provider.locale;
  connection.textContent = cutOff ? s().reconnecting : '';
}

const TEST_IDS = { user: 'user-text', assistant: 'assistant-text', tool: 'tool-text', error: 'run-error', card: 'card-item' } as const;
const runStatus = $<HTMLElement>('[data-testid="run-status"]');
const connection = $<HTMLElement>('[data-testid="connection-status"]');
const sendButton = $<HTMLButtonElement>('#send');
const stopButton = $<HTMLButtonElement>('#stop');
let streaming = 0;
/** A stream is cut off and reconnecting: the header says so, in the page's language. */
let cutOff = false;
/** Stops reading the streams of the session shown: a reload of the view, or another session, starts afresh. */
let reading = new AbortController();

/** While a run streams, send waits (a message sent mid-stream would only get session_busy) and the stop button shows. */
function streamingChanged() {
  sendButton.disabled = streaming > 0;
  stopButton.hidden = streaming === 0;
  if (streaming === 0) stopButton.disabled = false;
}

/**
 * The connection of a stream the page reads: cut off for 2 s says "reconnecting…" in the header; frames flowing
 * again clear it; `gone` (the server no longer keeps what was missed) reloads the view, history and card.
 */
function connectionChanged(state: ConnectionState) {
  cutOff = state === 'reconnecting';
  connection.textContent = cutOff ? s().reconnecting : '';
  if (state === 'gone') void restore().catch((err) => item('error', `${s().error}: ${(err as Error).message}`));
}

function item(kind: keyof typeof TEST_IDS, text = ''): HTMLLIElement {
  const li = document.createElement('li');
  li.className = `msg msg-${kind}`;
  li.dataset.testid = TEST_IDS[kind];
  if (text) li.textContent = text;
  log.append(li);
  li.scrollIntoView({ block: 'end' });
  return li;
}

/** A tool's result, folded: the name shows, the raw content opens on demand (it is often long JSON). */
function toolItem(name: string, content: string): void {
  const details = document.createElement('details');
  const summary = document.createElement('summary');
  summary.textContent = `${s().tool} ${name}`.trim();
  const body = document.createElement('pre');
  body.textContent = content;
  details.append(summary, body);
  item('tool').append(details);
}

function addCard(request: object): AskUserCard {
  const id = (request as { id: string }).id;
  const known = cards.get(id);
  if (known) return known;
  const li = item('card');
  const card = document.createElement('ask-user-card') as AskUserCard;
  card.request = request as AskUserCard['request'];
  card.locale = provider.locale;
  card.dataset.requestId = id;
  li.append(card);
  cards.set(id, card);
  // A card that can still be answered may be answered elsewhere (a restored one may have expired or be unresumable).
  const { status, resumable } = request as { status?: string; resumable?: boolean };
  if (features.answerLinks && status !== 'expired' && resumable !== false) {
    const action = answerElsewhere({ sessionId: () => sessionId, requestId: id, strings: s });
    openActions.set(id, action);
    li.append(action);
  }
  return card;
}

/** The card closed (answered here or elsewhere, superseded, expired): its "answer elsewhere" goes. */
function cardClosed(requestId: string | undefined) {
  if (!requestId) return;
  openActions.get(requestId)?.remove();
  openActions.delete(requestId);
}

/** Brings the page to a card: scrolled into view and marked as the one a notification named. */
function markCard(requestId: string): boolean {
  const card = cards.get(requestId);
  if (!card) return false;
  for (const li of log.querySelectorAll('[aria-current]')) li.removeAttribute('aria-current');
  const li = card.closest('li')!;
  li.setAttribute('aria-current', 'true');
  li.scrollIntoView({ block: 'center' });
  return true;
}

/**
 * A notification's click, told by the service worker to this tab: the card shown here is brought into view;
 * else the page goes where the notification points (the session of the card, or the card's answer link).
 */
async function showNotifiedCard(requestId: string | undefined, url: string | undefined) {
  if (requestId && markCard(requestId)) return;
  const target = url ? new URL(url, location.origin) : undefined;
  if (!target) return;
  const session = target.origin === location.origin && target.pathname === '/' ? target.searchParams.get('session') : null;
  if (session === null) return void location.assign(target.href);
  if (session !== sessionId) useSession(session);
  await restore();
  if (requestId) markCard(requestId);
}

/**
 * Draw one stream into the log; a new assistant bubble starts at the first text. Resolves to the `done`
 * reason, or `error` for a stream that broke off or ended without one. Each answered card learns how the run
 * its answer continued ended from the next `done` (a picked-up stream may hold several). `watch` shows the
 * stream's own connection state; a card's continuation reports it through the provider instead.
 */
async function drawStream(
  events: ChatEventStream,
  { watch = false, answered }: { watch?: boolean; answered?: AskUserCard } = {},
): Promise<DoneReason> {
  let bubble: HTMLLIElement | undefined;
  let ended: DoneReason = 'error';
  let sawDone = false;
  let failed = false;
  const continuing = new Set(answered ? [answered] : []);
  const runEnded = (reason: DoneReason) => {
    for (const card of continuing) card.markRunEnded(reason);
    continuing.clear();
  };
  if (watch) events.addEventListener('connection', (e) => connectionChanged(e.state));
  runStatus.textContent = 'running';
  streaming++;
  streamingChanged();
  try {
    for await (const e of events) {
      switch (e.event) {
        case 'message_delta':
          bubble ??= item('assistant');
          bubble.textContent += e.data.text;
          break;
        case 'user_input_required':
          addCard(e.data);
          bubble = undefined;
          break;
        case 'interaction_resolved': {
          // Superseded or expired cards learn it here; an answered card keeps the receipt it already shows.
          cardClosed(e.data.requestId);
          const card = cards.get(e.data.requestId);
          card?.markResolved(e.data);
          if (card && e.data.status === 'answered') continuing.add(card);
          break;
        }
        case 'tool_result':
          if (e.data.name !== 'ask_user') toolItem(e.data.name, e.data.content);
          bubble = undefined;
          break;
        case 'error':
          item('error', `${s().error}: ${e.data.code === 'session_busy' ? s().busy : e.data.message} (${e.data.code})`);
          break;
        case 'done':
          sawDone = true;
          runStatus.textContent = ended = e.data.reason;
          runEnded(e.data.reason);
          break;
      }
    }
  } catch (err) {
    failed = true;
    item('error', `${s().error}: ${(err as Error).message}`);
    runStatus.textContent = ended = 'error';
  } finally {
    runEnded('error');
    streaming--;
    streamingChanged();
    void refreshTrace();
    void refreshAllowed().catch(() => {});
  }
  // Ended without `done` and not by us: the server had nothing in flight to pick up (204), so the session
  // view and its open card tell the rest (a `gone` stream restores through connectionChanged already).
  if (!sawDone && !failed && !reading.signal.aborted && events.state !== 'gone') {
    void restore().catch((err) => item('error', `${s().error}: ${(err as Error).message}`));
  }
  return ended;
}

/** The tools allowed for the rest of the session (§12 "always"): the line says which, and hides while there are none. */
function showAllowed(names: readonly string[] | undefined) {
  allowedTools.textContent = (names ?? []).join(', ');
  allowedLine.hidden = !names?.length;
}

/** After a stream ended: an approval card answered with "always" may have allowed a tool. */
async function refreshAllowed() {
  const id = sessionId;
  const res = await fetch(`/api/session?sessionId=${encodeURIComponent(id)}`);
  if (!res.ok || id !== sessionId) return;
  showAllowed(((await res.json()) as SessionView).alwaysAllowed);
}

async function send(message: string) {
  item('user', message);
  const result = await startChat({ sessionId, message }, { signal: reading.signal });
  if (!result.ok) {
    item('error', `${s().error}: ${result.error.message} (${result.error.code})`);
    return;
  }
  await drawStream(result.events, { watch: true });
}

/** The stop button: the server ends the run as cancelled, and the stream being read says so with its `done`. */
async function stop() {
  stopButton.disabled = true;
  try {
    // `stopped: false`: nothing was running, so the stream is about to end by itself; the button may be pressed again meanwhile.
    if (!(await stopChat(sessionId)).stopped) stopButton.disabled = false;
  } catch (err) {
    item('error', `${s().error}: ${(err as Error).message}`);
    stopButton.disabled = false;
  }
}

/** The items up to the user message that started the session's last run: what happened before that run. */
function beforeLastRun(items: SessionItem[]): SessionItem[] {
  const last = items.findLastIndex((i) => i.role === 'user');
  return items.slice(0, last + 1);
}

/**
 * After a reload (or when a stream is gone): the history, then either the run still in flight or the open
 * card (which may say the run cannot resume). A run in flight is picked up from its first frame (`lastEventId:
 * null`, not the id kept before the reload): the history is drawn up to the message that started it and the
 * stream draws the rest, so each piece of text is drawn once, whatever the history had saved of the run.
 */
async function restore() {
  reading.abort();
  reading = new AbortController();
  const { signal } = reading;
  log.replaceChildren();
  cards.clear();
  openActions.clear();
  connectionChanged('connected');
  let res = await fetch(`/api/session?sessionId=${encodeURIComponent(sessionId)}`);
  if (res.status === 403) {
    // A `?session=` link (or a stored id) of another browser: the server says nothing about it, and
    // this visitor gets a session of their own.
    useSession(newSessionId());
    item('error', s().notYours);
    res = await fetch(`/api/session?sessionId=${encodeURIComponent(sessionId)}`);
  }
  const view = (await res.json()) as SessionView;
  showAllowed(view.alwaysAllowed);
  const resumed = await resumeChat(sessionId, { lastEventId: null, signal }).catch(() => undefined);
  if (signal.aborted) return;
  // 204 (nothing in flight) and a server without the route alike: the history and the card tell it all.
  const live = resumed?.ok && resumed.response.status === 200 ? resumed.events : undefined;
  const pending = live ? null : await fetchPending(sessionId).catch(() => null);
  if (signal.aborted) return;
  // A run paused on a question that timed out is not waiting for anyone any more.
  runStatus.textContent = pending?.status === 'expired' ? 'expired' : view.status === 'new' ? 'idle' : view.status;
  const items = live ? beforeLastRun(view.items) : view.items;
  for (const e of historyEntries(items, pending?.toolCallId, !live && view.status === 'running')) {
    if (e.kind === 'tool') toolItem(e.name, e.content);
    // In the provider's language, which the page's language switch changes.
    else if (e.kind === 'receipt') item('card').append(historicReceipt(e.receipt));
    else item(e.kind, e.text);
  }
  if (pending) addCard(pending);
  if (live) void drawStream(live, { watch: true });
}

async function refreshTrace() {
  if (traceBox.hidden) return;
  const res = await fetch(`/api/trace?sessionId=${encodeURIComponent(sessionId)}`);
  if (!res.ok) {
    traceLines.textContent = res.status === 404 ? s().traceOff : `${s().error}: HTTP ${res.status}`;
    return;
  }
  const body = (await res.json()) as { lines: Array<{ at: string; source: string; stream?: string; text: string }> };
  const showDeltas = $<HTMLInputElement>('#trace-deltas').checked;
  // Text deltas are most of a stream; hidden by default so the events that matter stand out.
  const lines = showDeltas ? body.lines : body.lines.filter((l) => !/^(id: .*\n)?event: message_delta\n/.test(l.text));
  traceLines.textContent = lines.map((l) => `[${l.at.slice(11, 23)}] ${l.source}${l.stream ? `/${l.stream}` : ''}\n${l.text}`).join('\n\n');
  traceLines.scrollTop = traceLines.scrollHeight;
}

form.addEventListener('submit', (ev) => {
  ev.preventDefault();
  const message = input.value.trim();
  if (!message || streaming > 0) return;
  input.value = '';
  void send(message);
});
input.addEventListener('keydown', (ev) => {
  if (ev.key === 'Enter' && !ev.shiftKey && !ev.isComposing) {
    ev.preventDefault();
    form.requestSubmit();
  }
});
// The answered card says "continuing" until its continuation stream ends; then it says how.
document.addEventListener('ask-user-continued', (ev) => {
  const { requestId, events } = (ev as AskUserContinuedEvent).detail;
  cardClosed(requestId);
  const answered = cards.get(requestId);
  void drawStream(events, answered ? { answered } : {});
});
// A card's continuation stream reports its connection through the provider.
document.addEventListener('ask-user-connection', (ev) => connectionChanged((ev as AskUserConnectionEvent).detail.state));
stopButton.addEventListener('click', () => void stop());
// The run stays paused on a question nobody can answer any more; the header says so instead.
document.addEventListener('ask-user-expired', (ev) => {
  cardClosed((ev.target as HTMLElement).dataset.requestId);
  if (streaming === 0 && [...cards.values()].at(-1) === ev.target) runStatus.textContent = 'expired';
});
$('#lang').addEventListener('click', () => {
  lang = lang === 'zh' ? 'en' : 'zh';
  localStorage.setItem(LANG_KEY, lang);
  applyLang();
});
/** Switch the page to `id`: stored, put on the provider, shown; a `?session=` link no longer applies. */
function useSession(id: string) {
  sessionId = id;
  localStorage.setItem(SESSION_KEY, sessionId);
  if (location.search) history.replaceState(null, '', location.pathname);
  provider.sessionId = sessionId;
  applyLang();
  // The switch follows the page to the session it shows.
  if (notifyState === 'on') void keepOn(sessionId).then(showNotifyState, notifyFailed);
}
$('#new-session').addEventListener('click', () => {
  useSession(newSessionId());
  void restore();
});
$('#trace-toggle').addEventListener('click', () => {
  traceBox.hidden = !traceBox.hidden;
  $('#trace-toggle').setAttribute('aria-expanded', String(!traceBox.hidden));
  void refreshTrace();
});
$('#trace-refresh').addEventListener('click', () => void refreshTrace());
$('#trace-deltas').addEventListener('change', () => void refreshTrace());

// §13: the "notify me" switch (Web Push) — shown where the browser can subscribe, asking nothing until clicked.
const notifyToggle = $<HTMLButtonElement>('#notify-toggle');
const notifyStatus = $<HTMLElement>('[data-testid="notify-status"]');
let notifyState: NotifyState = 'off';
let notifyError = '';

function showNotifyState(state: NotifyState) {
  notifyState = state;
  notifyToggle.setAttribute('aria-checked', String(state === 'on'));
  notifyStatus.textContent = notifyError
    ? `${s().notifyFailed}: ${notifyError}`
    : state === 'on'
      ? s().notifyOn
      : state === 'denied'
        ? s().notifyDenied
        : '';
}
function notifyFailed(err: unknown) {
  notifyError = (err as Error).message;
  showNotifyState('off');
}
notifyToggle.addEventListener('click', () => {
  notifyError = '';
  notifyToggle.disabled = true;
  (notifyState === 'on' ? turnOff(sessionId) : turnOn(sessionId))
    .then(showNotifyState, notifyFailed)
    .finally(() => (notifyToggle.disabled = false));
});
// The worker's word that a notification of a card was clicked (page/sw.ts).
navigator.serviceWorker?.addEventListener('message', (ev: MessageEvent) => {
  const data = ev.data as { type?: unknown; requestId?: unknown; url?: unknown } | null;
  if (data?.type !== CLICK_MESSAGE) return;
  const requestId = typeof data.requestId === 'string' ? data.requestId : undefined;
  void showNotifiedCard(requestId, typeof data.url === 'string' ? data.url : undefined).catch((err) =>
    item('error', `${s().error}: ${(err as Error).message}`),
  );
});
navigator.serviceWorker?.startMessages();

/**
 * While a card waits and nothing streams, it may be answered elsewhere (an answer link): the pending card
 * is read every few seconds while the page is visible, and the page redraws (picking up the run) once
 * the card shown is no longer the one waiting.
 */
const WATCH_MS = 3000;
let watching = false;
async function watchOpenCard() {
  if (watching || streaming > 0 || openActions.size === 0 || document.hidden) return;
  watching = true;
  const shown = sessionId;
  try {
    const pending = await fetchPending(shown);
    if (shown !== sessionId || streaming > 0) return;
    if (!pending || pending.status !== 'pending' || !openActions.has(pending.id)) await restore();
  } catch {
    // Unreachable for now: the next look tries again.
  } finally {
    watching = false;
  }
}

provider.sessionId = sessionId;
applyLang();
const cardAsked = new URLSearchParams(location.search).get('card');
fetch('/api/features')
  .then(async (res) => (res.ok ? (features = { ...features, ...((await res.json()) as typeof features) }) : features))
  .catch(() => features)
  .then(() => {
    if (features.answerLinks) setInterval(() => void watchOpenCard(), WATCH_MS);
    document.addEventListener('visibilitychange', () => void watchOpenCard());
    if (features.webPush && pushSupported()) {
      notifyToggle.hidden = false;
      if (notifyWanted()) void keepOn(sessionId).then(showNotifyState, notifyFailed);
    }
    return restore();
  })
  .then(() => {
    // Opened from a notification: the page at the card it named.
    if (cardAsked) markCard(cardAsked);
  })
  .catch((err) => item('error', `${s().error}: ${(err as Error).message}`))
  .finally(() => (document.body.dataset.ready = 'true'));
