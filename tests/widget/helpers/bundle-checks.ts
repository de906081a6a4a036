/**
 * Checks run against a BUILT bundle in dist/widget/ (not the sources): the element registers, its
 * decorators took effect (reactive properties re-render), it renders a single-mode form, and the bundled
 * client and SSE reader carry a submission through to the continuation stream, loaded from the bundle's
 * own chunks beside it. Requires `npx vite build`
 * (or `npm run build`) beforehand; a missing bundle fails with that instruction.
 */
import { describe, it, before } from './bdd.js';
import { deepEqual, equal, ok } from './assert.js';
import { until } from './expect.js';
import { acceptedStream, ACCEPTED_EVENTS, collect, streamResponse } from './sse-fixtures.js';

interface BuiltModule {
  AskUserCard: CustomElementConstructor;
  submitUserInput: unknown;
  readChatEvents: unknown;
  startChat: unknown;
  fetchPending: unknown;
}

type Card = HTMLElement & {
  request?: unknown;
  onSubmit?: (selections: string[], customInput: string, cancelled: boolean) => unknown;
  endpoint?: string;
  fetch?: typeof fetch;
  updateComplete: Promise<boolean>;
};

const request = (id: string, title: string) => ({
  id,
  toolCallId: 'call_1',
  sessionId: 'sess-1',
  title,
  mode: 'single',
  options: [
    { id: 'safe', label: '先分析', recommended: true },
    { id: 'fast', label: '直接执行' },
  ],
  expiresAt: new Date(Date.now() + 30 * 60_000).toISOString(),
  resumable: true,
});

async function mount(req: unknown): Promise<Card> {
  const card = document.createElement('ask-user-card') as Card;
  card.setAttribute('no-autofocus', '');
  card.request = req;
  document.body.append(card);
  await card.updateComplete;
  return card;
}

const root = (card: Card) => {
  ok(card.shadowRoot, 'the card renders into a shadow root');
  return card.shadowRoot;
};

export function describeBuiltBundle(file: string, { selfContained }: { selfContained: boolean }): void {
  const url = `/dist/widget/${file}`;

  describe(`built bundle dist/widget/${file}`, () => {
    let mod: BuiltModule;
    let source = '';

    before(async () => {
      const response = await fetch(url);
      if (!response.ok) {
        throw new Error(
          `${url} is missing (HTTP ${response.status}): run \`npx vite build\` (or \`npm run build\`) before the browser tests.`,
        );
      }
      source = await response.text();
      mod = (await import(/* @vite-ignore */ url)) as BuiltModule;
    });

    it(selfContained ? 'imports nothing: lit is inside' : 'imports lit and @lit/context instead of bundling them', () => {
      const bare = [...source.matchAll(/\bfrom\s*["'`]([^"'`]+)["'`]|\bimport\s*["'`]([^"'`]+)["'`]/g)].map((m) => m[1] ?? m[2]);
      if (selfContained) deepEqual(bare, [], 'static imports of the standalone bundle');
      else {
        // The test server rewrites bare specifiers to node_modules paths; either form names lit or @lit/context.
        const fromLit = /^(?:[./]*node_modules\/)?(?:lit|@lit\/context)(?:\/|$)/;
        ok(bare.length > 0 && bare.every((s) => fromLit.test(s!)), `imports: ${bare.join(', ')}`);
        equal(source.includes('lit-html'), false, 'lit-html is not copied into the ES module');
      }
    });

    it('exports the element class and the client API, and defines <ask-user-card>', () => {
      equal(customElements.get('ask-user-card'), mod.AskUserCard);
      for (const name of ['submitUserInput', 'readChatEvents', 'startChat', 'fetchPending'] as const) {
        equal(typeof mod[name], 'function', name);
      }
    });

    it('renders a single-mode form with one radio per option', async () => {
      const card = await mount(request('ask_BBBBBBBBBBBBBBBBBBBBBB', '请选择执行方式'));
      try {
        const shadow = root(card);
        equal(shadow.querySelector('legend')?.textContent?.trim(), '请选择执行方式');
        const radios = [...shadow.querySelectorAll<HTMLInputElement>('input[type="radio"]')];
        deepEqual(
          radios.map((r) => r.value),
          ['safe', 'fast'],
        );
        ok(
          radios.every((r) => r.name === radios[0]!.name),
          'the radios form one group',
        );
        ok(shadow.querySelector('[part~="submit-button"]'), 'a submit button');
      } finally {
        card.remove();
      }
    });

    it('re-renders when a property changes (decorators were applied, fields do not shadow accessors)', async () => {
      const card = await mount(request('ask_CCCCCCCCCCCCCCCCCCCCCC', 'first'));
      try {
        card.request = request('ask_DDDDDDDDDDDDDDDDDDDDDD', 'second');
        await card.updateComplete;
        equal(root(card).querySelector('legend')?.textContent?.trim(), 'second');
      } finally {
        card.remove();
      }
    });

    it('submits the chosen option id through onSubmit and shows the receipt', async () => {
      const card = await mount(request('ask_EEEEEEEEEEEEEEEEEEEEEE', 'pick'));
      try {
        const calls: unknown[][] = [];
        card.onSubmit = (...args) => void calls.push(args);
        const shadow = root(card);
        shadow.querySelectorAll<HTMLInputElement>('input[type="radio"]')[1]!.click();
        await card.updateComplete;
        shadow.querySelector<HTMLButtonElement>('[part~="submit-button"]')!.click();
        await until(() => shadow.querySelector('[part~="receipt"]'), 'the receipt');
        deepEqual(calls, [[['fast'], '', false]]);
        ok(shadow.querySelector('[part~="receipt"]'), 'the receipt replaces the form');
      } finally {
        card.remove();
      }
    });

    it('a card answered through onSubmit needed the entry alone: it loaded no chunk (what bench/bundle-size.ts counts as a plain card)', () => {
      // After the tests above, which showed cards and answered one through onSubmit; nothing has used the client yet.
      // The entry shows up twice: fetched as text by `before`, then imported.
      const loaded = new Set(performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname));
      deepEqual(
        [...loaded].filter((path) => path.startsWith('/dist/widget/')),
        [url],
        'files of dist/widget/ loaded',
      );
    });

    it('posts through the bundled client and hands the bundled SSE reader’s events to ask-user-continued', async () => {
      const card = await mount(request('ask_FFFFFFFFFFFFFFFFFFFFFF', 'pick'));
      try {
        const posted: string[] = [];
        card.endpoint = '/agent';
        card.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
          posted.push(`${String(input)} ${String(init?.body)}`);
          return streamResponse([acceptedStream()]).response;
        }) as typeof fetch;
        // Typed by shape: the event class comes from the bundle under test, not from the sources.
        type Continued = Event & { detail: { events: AsyncIterable<unknown> } };
        const continued = new Promise<Continued>((resolve) =>
          card.addEventListener('ask-user-continued', (e) => resolve(e as unknown as Continued), { once: true }),
        );
        await card.updateComplete;
        const shadow = root(card);
        shadow.querySelectorAll<HTMLInputElement>('input[type="radio"]')[0]!.click();
        await card.updateComplete;
        shadow.querySelector<HTMLButtonElement>('[part~="submit-button"]')!.click();
        const event = await continued;
        deepEqual(posted, [
          '/agent/chat/continue {"sessionId":"sess-1","requestId":"ask_FFFFFFFFFFFFFFFFFFFFFF","selections":["safe"],"customInput":"","cancelled":false}',
        ]);
        deepEqual(await collect(event.detail.events), ACCEPTED_EVENTS);
      } finally {
        card.remove();
      }
    });

    it('loaded what the card and the reader needed from its own chunks beside it, and nothing of the other bundle', () => {
      // After the tests above: a card was answered through the client, and the stream read.
      const loaded = performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname);
      const prefix = `/dist/widget/${file.replace(/\.js$/, selfContained ? '-' : '.')}`;
      for (const chunk of ['client-calls', 'sse-stream']) {
        ok(loaded.includes(`${prefix}${chunk}.js`), `${prefix}${chunk}.js was loaded; loaded: ${loaded.join(', ')}`);
      }
      const other = selfContained ? /\/ask-user-kit\.(?!standalone|markdown\.)[^/]*$/ : /\/ask-user-kit\.standalone/;
      deepEqual(
        loaded.filter((path) => other.test(path)),
        [],
        'files of the other bundle',
      );
    });
  });
}
