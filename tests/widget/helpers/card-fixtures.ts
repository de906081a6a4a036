/**
 * Requests for every mode, as the server sends them in `user_input_required` (docs/protocol.md §3), and the
 * little DOM plumbing the card tests share: mounting, shadow queries, typing and clicking.
 */
import type { AskUserCard, AskUserRequest } from '../../../widget/ask-user-card.js';
import '../../../widget/ask-user-card.js';
import '../../../widget/ask-user-provider.js';

let counter = 0;
/** A fresh request id each call (`ask_` + 22 URL-safe characters), so cards never share state. */
export const newRequestId = () => `ask_${String(++counter).padStart(4, '0')}${'A'.repeat(18)}`;

/** Far enough ahead that no test sees it pass. */
export const LATER = () => new Date(Date.now() + 30 * 60_000).toISOString();

export function request(overrides: Partial<AskUserRequest> & Pick<AskUserRequest, 'mode'>): AskUserRequest {
  return {
    id: newRequestId(),
    toolCallId: `call_${counter}`,
    sessionId: 'sess-1',
    title: '请选择执行方式',
    expiresAt: LATER(),
    resumable: true,
    ...overrides,
  };
}

export const OPTIONS = [
  { id: 'safe', label: '先分析', description: '只阅读并给出方案', recommended: true },
  { id: 'implement', label: '直接实现', description: '开始修改工作区' },
  { id: 'skip', label: '跳过' },
];

export const single = (o: Partial<AskUserRequest> = {}) =>
  request({ mode: 'single', description: '不同方式会影响接下来的工具权限。', options: OPTIONS, submitLabel: '继续', ...o });
export const multiple = (o: Partial<AskUserRequest> = {}) => request({ mode: 'multiple', options: OPTIONS, ...o });
export const toggle = (o: Partial<AskUserRequest> = {}) => request({ mode: 'toggle', options: OPTIONS, ...o });
export const text = (o: Partial<AskUserRequest> = {}) => request({ mode: 'text', title: '描述你的需求', ...o });
export const number = (o: Partial<AskUserRequest> = {}) => request({ mode: 'number', title: '并发数', ...o });
export const date = (o: Partial<AskUserRequest> = {}) => request({ mode: 'date', title: '截止日期', ...o });
export const directory = (o: Partial<AskUserRequest> = {}) => request({ mode: 'directory', title: '输出目录', ...o });

/** A link card (§10 URL mode), as an MCP server's URL elicitation arrives. */
export const link = (o: Partial<AskUserRequest> = {}) =>
  request({
    mode: 'url',
    title: '连接你的日历',
    description: '在日历页面登录，以便查找空闲时间。',
    url: 'https://calendar.example:8443/connect?state=abc',
    ...o,
  });

/** Clicks a link card's link as a user would, with the browser's own navigation (a new tab) held back. */
export function openWithoutNavigating(card: AskUserCard, init: MouseEventInit = {}): void {
  window.addEventListener('click', (e) => e.preventDefault(), { capture: true, once: true });
  $(card, '[part~="open-link"]').dispatchEvent(new MouseEvent('click', { bubbles: true, composed: true, cancelable: true, ...init }));
}

export const ALL_MODES = { single, multiple, toggle, text, number, date, directory };

export interface Submission {
  selections: string[];
  customInput: string;
  cancelled: boolean;
}

/** Mounts a card with `onSubmit` recording each call (resolving at once unless `onSubmit` is given). */
export async function mount(
  req: unknown,
  props: Partial<Pick<AskUserCard, 'onSubmit' | 'locale' | 'strings' | 'noAutofocus' | 'endpoint' | 'fetch' | 'sessionId'>> = {},
  parent: HTMLElement = document.body,
): Promise<{ card: AskUserCard; calls: Submission[] }> {
  const calls: Submission[] = [];
  const card = document.createElement('ask-user-card');
  card.onSubmit = (selections, customInput, cancelled) => {
    calls.push({ selections, customInput, cancelled });
  };
  Object.assign(card, props);
  card.request = req as AskUserRequest;
  parent.append(card);
  await card.updateComplete;
  return { card, calls };
}

/** Removes everything the tests added to the page. */
export function cleanup(): void {
  for (const el of [...document.body.children]) if (el.localName !== 'script') el.remove();
}

export function $<E extends Element = HTMLElement>(card: AskUserCard, selector: string): E {
  const el = card.shadowRoot!.querySelector<E>(selector);
  if (!el) throw new Error(`no ${selector} in the card; it holds: ${card.shadowRoot!.innerHTML.slice(0, 400)}`);
  return el;
}

export const $$ = <E extends Element = HTMLElement>(card: AskUserCard, selector: string): E[] => [
  ...card.shadowRoot!.querySelectorAll<E>(selector),
];

export const has = (card: AskUserCard, selector: string) => card.shadowRoot!.querySelector(selector) !== null;

/** Visible text of a part, whitespace collapsed. */
export const textOf = (card: AskUserCard, selector: string) => $(card, selector).textContent!.replace(/\s+/g, ' ').trim();

/** Sets a field's value as typing would, firing `input` and `change`. */
export async function type(card: AskUserCard, selector: string, value: string): Promise<void> {
  const el = $<HTMLInputElement | HTMLTextAreaElement>(card, selector);
  el.value = value;
  el.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
  el.dispatchEvent(new Event('change', { bubbles: true }));
  await card.updateComplete;
}

/** Clicks the option whose label is `label`. */
export async function pick(card: AskUserCard, label: string): Promise<void> {
  const labels = $$<HTMLLabelElement>(card, '[part~="option-label"]');
  const hit = labels.find((l) => l.firstChild?.textContent?.trim() === label || l.textContent?.trim().startsWith(label));
  if (!hit) throw new Error(`no option labelled ${label}; have ${labels.map((l) => l.textContent).join(' | ')}`);
  hit.click();
  await card.updateComplete;
}

export async function submit(card: AskUserCard): Promise<void> {
  $<HTMLButtonElement>(card, '[part~="submit-button"]').click();
  await card.updateComplete;
}

export async function cancel(card: AskUserCard): Promise<void> {
  $<HTMLButtonElement>(card, '[part~="cancel-button"]').click();
  await card.updateComplete;
}

/** Lets pending promise callbacks and the re-render they cause finish. */
export async function settle(card: AskUserCard): Promise<void> {
  for (let i = 0; i < 3; i++) {
    await new Promise((r) => setTimeout(r, 0));
    await card.updateComplete;
  }
}

/** The element focus is on, looking through shadow roots. */
export function deepActiveElement(): Element | null {
  let el: Element | null = document.activeElement;
  while (el?.shadowRoot?.activeElement) el = el.shadowRoot.activeElement;
  return el;
}
