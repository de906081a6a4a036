/**
 * axe-core finds no violation (WCAG 2 A/AA and best practices, colour contrast included) in any mode or
 * state of the card, in the light and the dark scheme; plus the structure axe cannot judge: a live region
 * that exists before it speaks, and recommended options named in words.
 */
import { emulateMedia } from '@web/test-runner-commands';
import type { AskUserCard } from '../../widget/ask-user-card.js';
import { describe, it, after, afterEach } from './helpers/bdd.js';
import { checkA11y } from './helpers/axe.js';
import { assert, equal, includes, until } from './helpers/expect.js';
import {
  ALL_MODES,
  $,
  cleanup,
  has,
  link,
  mount,
  openWithoutNavigating,
  pick,
  settle,
  single,
  submit,
  textOf,
} from './helpers/card-fixtures.js';

afterEach(cleanup);
after(() => emulateMedia({ colorScheme: 'light' }));

const never = () => new Promise<never>(() => {});

type Setup = () => Promise<AskUserCard>;

const STATES: Record<string, Setup> = {
  'unsupported mode': async () => (await mount({ ...single(), mode: 'colour' })).card,
  'validation error': async () => {
    const { card } = await mount(single({ allowCustom: true }));
    await submit(card);
    return card;
  },
  submitting: async () => {
    const { card } = await mount(single(), { onSubmit: never });
    await pick(card, '先分析');
    await submit(card);
    return card;
  },
  'server error with retry': async () => {
    const { card } = await mount(single(), {
      onSubmit: () => Promise.resolve({ ok: false, status: 503, error: { code: 'store_unavailable', message: 'down' } }),
    });
    await pick(card, '先分析');
    await submit(card);
    await until(() => has(card, '[part~="server-error"]'), 'error');
    return card;
  },
  'answered receipt': async () => {
    const { card } = await mount(single({ allowCustom: true }));
    await pick(card, '先分析');
    await submit(card);
    await settle(card);
    return card;
  },
  'cancelled receipt': async () => {
    const { card } = await mount(single());
    $<HTMLButtonElement>(card, '[part~="cancel-button"]').click();
    await settle(card);
    return card;
  },
  'countdown in its last minute': async () => (await mount(single({ expiresAt: new Date(Date.now() + 50_000).toISOString() }))).card,
  'expired receipt': async () => (await mount(single({ status: 'expired' }))).card,
  'not resumable': async () => (await mount(single({ resumable: false }))).card,
  // §10 URL mode: the link card, the receipt after opening it, and a link it refuses to show.
  'link card': async () => (await mount(link())).card,
  'link card, opened': async () => {
    const { card } = await mount(link());
    openWithoutNavigating(card);
    await settle(card);
    return card;
  },
  'link card, refused link': async () => (await mount(link({ url: 'javascript:alert(1)' }))).card,
  'answered elsewhere': async () => {
    const { card } = await mount(single(), {
      onSubmit: () =>
        Promise.resolve({
          ok: false,
          status: 409,
          error: {
            code: 'already_answered',
            message: 'x',
            receipt: { requestId: 'a', toolCallId: 'b', status: 'answered', at: '2030-01-01T00:00:00Z' },
          },
        }),
    });
    await pick(card, '先分析');
    await submit(card);
    await settle(card);
    return card;
  },
};

for (const [name, make] of Object.entries(ALL_MODES)) {
  STATES[`${name} mode`] = async () => (await mount(make({ description: '补充说明', allowCustom: true }))).card;
  STATES[`${name} mode, refused`] = async () => {
    const req = make({ allowCustom: false });
    const { card } = await mount(req);
    if (name === 'directory') {
      const field = $<HTMLInputElement>(card, '#field');
      field.value = '/abs';
      field.dispatchEvent(new Event('input'));
    }
    await submit(card);
    // multiple accepts an empty answer; every other mode shows its message.
    if (name !== 'multiple') assert(has(card, '[part~="error"]'), `${name} shows an error`);
    return card;
  };
}

for (const scheme of ['light', 'dark'] as const) {
  describe(`axe, ${scheme} scheme`, () => {
    for (const [state, make] of Object.entries(STATES)) {
      it(`no violations: ${state}`, async () => {
        await emulateMedia({ colorScheme: scheme });
        const card = await make();
        await checkA11y(card, `${state} (${scheme})`);
      });
    }
  });
}

describe('the checker itself', () => {
  it('catches an unnamed button and low contrast inside a shadow root, so a pass above means something', async () => {
    await emulateMedia({ colorScheme: 'light' });
    const host = document.createElement('div');
    document.body.append(host);
    host.attachShadow({ mode: 'open' }).innerHTML = '<button></button><p style="color:#bbb;background:#fff">faint text</p>';
    let message = '';
    try {
      await checkA11y(host, 'a broken fixture');
    } catch (err) {
      message = (err as Error).message;
    }
    includes(message, 'button-name', 'unnamed button found');
    includes(message, 'color-contrast', 'contrast checked');
  });
});

describe('what axe cannot see', () => {
  it('the dark scheme really changes the colours', async () => {
    await emulateMedia({ colorScheme: 'light' });
    const { card } = await mount(single());
    const light = getComputedStyle($(card, '[part~="base"]')).backgroundColor;
    await emulateMedia({ colorScheme: 'dark' });
    const dark = getComputedStyle($(card, '[part~="base"]')).backgroundColor;
    assert(light !== dark, `background differs (${light} vs ${dark})`);
    equal(getComputedStyle(card).colorScheme, 'light dark', 'color-scheme declared');
    await emulateMedia({ colorScheme: 'light' });
  });

  it('--ask-user-* custom properties restyle the card', async () => {
    const { card } = await mount(single());
    card.style.setProperty('--ask-user-background', 'rgb(1, 2, 3)');
    equal(getComputedStyle($(card, '[part~="base"]')).backgroundColor, 'rgb(1, 2, 3)', 'background');
  });

  it('the live region is in the page from the start, polite and atomic', async () => {
    const { card } = await mount(single());
    const region = $(card, '[role="status"]');
    equal(region.getAttribute('aria-live'), 'polite', 'polite');
    equal(region.getAttribute('aria-atomic'), 'true', 'atomic');
    equal(region.textContent!.trim(), '', 'silent until something happens');
    await submit(card);
    includes(region.textContent, '请选择一个选项', 'speaks the validation message');
    const first = region.textContent;
    await submit(card);
    includes(region.textContent, '请选择一个选项', 'same message again');
    assert(region.textContent !== first, 'the text changes, so a screen reader speaks it a second time');
  });

  it('every control has a label; recommended is part of the accessible text, not colour alone', async () => {
    const { card } = await mount(single({ allowCustom: true }));
    const label = card.shadowRoot!.querySelector('label[for="option-0"]')!;
    includes(label.textContent, '推荐', 'in the label');
    equal(card.shadowRoot!.querySelector('label[for="other"]')?.textContent, '其他说明', 'other box labelled');
    equal(textOf(card, 'legend'), '请选择执行方式', 'legend');
  });
});
