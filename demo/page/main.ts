/**
 * The demo page: a chat on `POST /api/chat` whose questions appear as `<ask-user-card>` inline. Cards
 * submit by themselves through `<ask-user-provider>`; the page reads every stream (chat and continue)
 * with the widget's reader and draws text, cards, tool results and errors. After a reload it redraws the
 * history and restores the open card from `GET /api/interactions/pending`.
 */
import 'ask-user-kit/widget';
import {
  fetchPending,
  startChat,
  type AskUserCard,
  type AskUserContinuedEvent,
  type ChatEvent,
  type DoneReason,
} from 'ask-user-kit/widget';
import { PAGE_STRINGS, type PageLang } from './i18n.js';
import { historicReceipt, historyEntries, type SessionView } from './history.js';

const SESSION_KEY = 'ask-user-demo.session';
const LANG_KEY = 'ask-user-demo.lang';

const $ = <T extends HTMLElement>(sel: string) => document.querySelector(sel) as T;
const log = $<HTMLOListElement>('#log');
const provider = $<HTMLElement & { sessionId?: string; locale?: string }>('ask-user-provider');
const form = $<HTMLFormElement>('#composer');
const input = $<HTMLTextAreaElement>('#message');
const traceBox = $<HTMLElement>('#trace');
const traceLines = $<HTMLPreElement>('#trace-lines');

const newSessionId = () => `s-${crypto.randomUUID()}`;
// `?session=<id>` opens a given session (handy for a second tab or a test); else the stored one.
let sessionId = new URLSearchParams(location.search).get('session') ?? localStorage.getItem(SESSION_KEY) ?? newSessionId();
localStorage.setItem(SESSION_KEY, sessionId);
let lang: PageLang = localStorage.getItem(LANG_KEY) === 'en' ? 'en' : 'zh';
const s = () => PAGE_STRINGS[lang];
const cards = new Map<string, AskUserCard>();

function applyLang() {
  document.documentElement.lang = lang === 'zh' ? 'zh-CN' : 'en';
  for (const el of document.querySelectorAll<HTMLElement>('[data-i18n]'))
    el.textContent = s()[el.dataset.i18n as keyof ReturnType<typeof s>];
  for (const el of document.querySelectorAll<HTMLTextAreaElement>('[data-i18n-placeholder]'))
    el.placeholder = s()[el.dataset.i18nPlaceholder as 'placeholder'];
  // The button names the other language in that language; `lang` lets a screen reader say it so.
  $('#lang').lang = lang === 'zh' ? 'en' : 'zh-CN';
  $('[data-testid="session-id"]').textContent = sessionId;
  // The id is cut to fit a phone; the whole of it stays in the DOM (copy) and in the tooltip.
  $('.session').title = sessionId;
  provider.locale = lang === 'zh' ? 'zh-CN' : 'en';
  for (const card of cards.values()) card.locale = provider.locale;
}

const TEST_IDS = { user: 'user-text', assistant: 'assistant-text', tool: 'tool-text', error: 'run-error', card: 'card-item' } as const;
const runStatus = $<HTMLElement>('[data-testid="run-status"]');
const sendButton = $<HTMLButtonElement>('#send');
let streaming = 0;

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
  return card;
}

/**
 * Draw one stream into the log; a new assistant bubble starts at the first text. Resolves to the `done`
 * reason, or `error` for a stream that broke off or ended without one.
 */
async function drawStream(events: AsyncIterable<ChatEvent>): Promise<DoneReason> {
  let bubble: HTMLLIElement | undefined;
  let ended: DoneReason = 'error';
  runStatus.textContent = 'running';
  // One stream at a time from this page: a message sent mid-stream would only get session_busy.
  streaming++;
  sendButton.disabled = true;
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
        case 'interaction_resolved':
          // Superseded or expired cards learn it here; an answered card keeps the receipt it already shows.
          cards.get(e.data.requestId)?.markResolved(e.data);
          break;
        case 'tool_result':
          if (e.data.name !== 'ask_user') toolItem(e.data.name, e.data.content);
          bubble = undefined;
          break;
        case 'error':
          item('error', `${s().error}: ${e.data.code === 'session_busy' ? s().busy : e.data.message} (${e.data.code})`);
          break;
        case 'done':
          runStatus.textContent = ended = e.data.reason;
          break;
      }
    }
  } catch (err) {
    item('error', `${s().error}: ${(err as Error).message}`);
    runStatus.textContent = ended = 'error';
  } finally {
    sendButton.disabled = --streaming > 0;
    void refreshTrace();
  }
  return ended;
}

async function send(message: string) {
  item('user', message);
  const result = await startChat({ sessionId, message });
  if (!result.ok) {
    item('error', `${s().error}: ${result.error.message} (${result.error.code})`);
    return;
  }
  await drawStream(result.events);
}

/** After a reload: the history, then the open card (which may say the run cannot resume). */
async function restore() {
  log.replaceChildren();
  cards.clear();
  let res = await fetch(`/api/session?sessionId=${encodeURIComponent(sessionId)}`);
  if (res.status === 403) {
    // A `?session=` link (or a stored id) of another browser: the server says nothing about it, and
    // this visitor gets a session of their own.
    useSession(newSessionId());
    item('error', s().notYours);
    res = await fetch(`/api/session?sessionId=${encodeURIComponent(sessionId)}`);
  }
  const view = (await res.json()) as SessionView;
  const pending = await fetchPending(sessionId).catch(() => null);
  // A run paused on a question that timed out is not waiting for anyone any more.
  runStatus.textContent = pending?.status === 'expired' ? 'expired' : view.status === 'new' ? 'idle' : view.status;
  for (const e of historyEntries(view.items, pending?.toolCallId, view.status === 'running')) {
    if (e.kind === 'tool') toolItem(e.name, e.content);
    // In the provider's language, which the page's language switch changes.
    else if (e.kind === 'receipt') item('card').append(historicReceipt(e.receipt));
    else item(e.kind, e.text);
  }
  if (pending) addCard(pending);
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
  const lines = showDeltas ? body.lines : body.lines.filter((l) => !l.text.startsWith('event: message_delta'));
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
  void drawStream(events).then((reason) => cards.get(requestId)?.markRunEnded(reason));
});
// The run stays paused on a question nobody can answer any more; the header says so instead.
document.addEventListener('ask-user-expired', (ev) => {
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

provider.sessionId = sessionId;
applyLang();
restore()
  .catch((err) => item('error', `${s().error}: ${(err as Error).message}`))
  .finally(() => (document.body.dataset.ready = 'true'));
