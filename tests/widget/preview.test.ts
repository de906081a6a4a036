/**
 * Option previews (docs/protocol.md §9.3): the preview of the focused or chosen option, followed by keyboard
 * alone, named and announced, reachable by Tab, beside the list on a wide card and below it on a narrow one;
 * axe finds nothing with previews and rich text in any state.
 */
import './helpers/built-widget.js';
import { emulateMedia, sendKeys } from '@web/test-runner-commands';
import { describe, it, after, afterEach } from './helpers/bdd.js';
import { checkA11y } from './helpers/axe.js';
import { assert, equal, includes, until } from './helpers/expect.js';
import { $, cleanup, deepActiveElement, mount, multiple, settle, single, submit } from './helpers/card-fixtures.js';
import { rendered } from './helpers/rich-text.js';
import { form } from './helpers/form-fixtures.js';
import type { AskUserCard, AskUserRequest } from '../../widget/ask-user-card.js';

afterEach(cleanup);
after(() => emulateMedia({ colorScheme: 'light' }));

const press = (key: string) => sendKeys({ press: key });

const OPTIONS = [
  { id: 'small', label: 'Small', description: 'Fast *and* cheap', preview: '```yaml\nreplicas: 1\n```' },
  { id: 'large', label: 'Large', preview: '- 3 replicas\n- a [runbook](https://example.com/runbook)' },
  { id: 'none', label: 'None' },
];
const withPreviews = (o: Partial<AskUserRequest> = {}) =>
  single({ description: 'Pick a **size**; see `replicas`.', options: OPTIONS, allowCustom: true, ...o });

const preview = (card: AskUserCard) => $(card, '[part~="preview"]');
const previewName = (card: AskUserCard) => $(card, '.preview-title').textContent;
/** The accessible name as the region's label states it. */
const regionLabel = (card: AskUserCard) => card.shadowRoot!.getElementById(preview(card).getAttribute('aria-labelledby')!)!.textContent;

describe('option previews', () => {
  it('follow focus between options by keyboard, and stay while focus is in the preview', async () => {
    const { card } = await mount(withPreviews(), { locale: 'en' });
    equal(previewName(card), 'Preview', 'nothing focused or chosen yet');
    includes(preview(card).textContent, 'Focus or choose an option', 'the prompt');
    await press('Tab');
    equal(deepActiveElement()?.id, 'option-0', 'Tab reaches the first option');
    equal(previewName(card), 'Preview: Small');
    includes((await rendered(card, '.preview-body')).textContent, 'replicas: 1');
    preview(card).style.maxHeight = '2rem';
    preview(card).scrollTop = 20;
    await press('ArrowDown');
    await card.updateComplete;
    equal(preview(card).scrollTop, 0, 'another option’s preview starts at its top');
    preview(card).style.maxHeight = '';
    equal(deepActiveElement()?.id, 'option-1');
    equal(previewName(card), 'Preview: Large', 'the arrow key moved focus and the preview');
    await until(() => card.shadowRoot!.querySelector('.preview-body ul'), 'the list of the second preview');
    await press('ArrowDown');
    await card.updateComplete;
    equal(previewName(card), 'Preview: None');
    includes(preview(card).textContent, 'This option has no preview.');
    await press('ArrowUp');
    await card.updateComplete;
    await press('Tab');
    equal(deepActiveElement(), preview(card), 'Tab after the options reaches the preview, to scroll it');
    equal(previewName(card), 'Preview: Large', 'the preview keeps the option last focused');
  });

  it('multiple mode: focus moves the preview without choosing; Space chooses', async () => {
    const { card, calls } = await mount(multiple({ options: OPTIONS }), { locale: 'en' });
    await press('Tab');
    await press('Tab');
    await card.updateComplete;
    equal(previewName(card), 'Preview: Large');
    await press('Space');
    await submit(card);
    await settle(card);
    equal(calls[0]?.selections.join(), 'large');
  });

  it('a default choice shows its preview at once', async () => {
    const { card } = await mount(withPreviews({ default: 'large' }));
    equal(previewName(card), '预览：Large');
  });

  it('is a named, focusable region whose name is announced politely', async () => {
    const { card } = await mount(withPreviews());
    const region = preview(card);
    equal(region.localName, 'section');
    equal(region.tabIndex, 0);
    equal(regionLabel(card), '预览');
    equal($(card, '.preview-title').getAttribute('aria-live'), 'polite');
    $<HTMLInputElement>(card, '#option-0').focus();
    await card.updateComplete;
    equal(regionLabel(card), '预览：Small');
  });

  it('sits beside the options on a wide card and below them at 375 px', async () => {
    const { card } = await mount(withPreviews());
    card.style.width = '40rem';
    const [list, box] = [$(card, '.options').getBoundingClientRect(), preview(card).getBoundingClientRect()];
    assert(
      box.left >= list.right && Math.abs(box.top - list.top) < 2,
      `beside: list ${JSON.stringify(list)}, preview ${JSON.stringify(box)}`,
    );
    card.style.width = '375px';
    const [l2, b2] = [$(card, '.options').getBoundingClientRect(), preview(card).getBoundingClientRect()];
    assert(b2.top >= l2.bottom && b2.width <= 375, `below: list ${JSON.stringify(l2)}, preview ${JSON.stringify(b2)}`);
  });

  it('a card without previews draws no preview region', async () => {
    const { card } = await mount(single());
    equal(card.shadowRoot!.querySelector('[part~="preview"], .choices'), null);
  });

  it('a §9.2 card: each question has its own preview, named apart; axe finds nothing', async () => {
    const req = form();
    req.questions![0] = { ...req.questions![0]!, options: OPTIONS, default: undefined };
    req.questions![2] = { id: 'env', header: '环境', title: '哪个环境？', mode: 'single', options: OPTIONS, required: true };
    const { card } = await mount(req);
    const regions = [...card.shadowRoot!.querySelectorAll('[part~="preview"]')];
    equal(regions.length, 2);
    equal(regions[1]!.getAttribute('aria-labelledby'), 'q2-preview-title q2-title', 'named by the preview and its question');
    await checkA11y(card, 'two previews, fresh');
    $<HTMLInputElement>(card, '#q2-option-0').focus();
    await card.updateComplete;
    includes(card.shadowRoot!.getElementById('q2-preview-title')!.textContent, 'Small');
    includes(card.shadowRoot!.getElementById('q0-preview-title')!.textContent, '预览');
    await checkA11y(card, 'two previews, one shown');
  });

  for (const scheme of ['light', 'dark'] as const) {
    it(`axe: no violation with previews and rich text, fresh, invalid, submitting and receipt (${scheme})`, async () => {
      await emulateMedia({ colorScheme: scheme });
      const never = () => new Promise<never>(() => {});
      const { card } = await mount(withPreviews(), { onSubmit: never });
      await rendered(card, '#description');
      await checkA11y(card, `fresh (${scheme})`);
      $<HTMLInputElement>(card, '#option-1').focus();
      await card.updateComplete;
      await rendered(card, '.preview-body');
      await checkA11y(card, `a rich preview (${scheme})`);
      await submit(card);
      await card.updateComplete;
      assert(card.shadowRoot!.querySelector('[aria-invalid="true"]'), 'invalid');
      await checkA11y(card, `invalid (${scheme})`);
      $<HTMLInputElement>(card, '#option-0').click();
      await submit(card);
      await card.updateComplete;
      await checkA11y(card, `submitting (${scheme})`);
      cleanup();
      const done = await mount(withPreviews());
      $<HTMLInputElement>(done.card, '#option-0').click();
      await submit(done.card);
      await settle(done.card);
      assert(done.card.shadowRoot!.querySelector('[part~="receipt"]'), 'receipt');
      await checkA11y(done.card, `receipt (${scheme})`);
    });
  }
});

describe('a long code line in a preview', () => {
  it('stays inside its code box on a phone-wide card; the preview, which takes focus, scrolls instead', async () => {
    const line = `image: registry.example.com/team/service:${'0123456789'.repeat(12)}`;
    const { card } = await mount(single({ options: [{ id: 'a', label: 'A', preview: `\`\`\`yaml\n${line}\n\`\`\`` }], default: 'a' }));
    card.style.width = '360px';
    const pre = await until(() => card.shadowRoot!.querySelector('.preview-body pre'), 'the code block');
    assert(pre.scrollWidth <= pre.clientWidth, `the code runs past its box (${pre.scrollWidth}px of text in ${pre.clientWidth}px)`);
    const box = preview(card);
    assert(box.scrollWidth > box.clientWidth, 'the preview scrolls sideways to the end of the line');
    equal(box.tabIndex, 0, 'the preview takes focus, so keys scroll it');
    await checkA11y(card, 'a preview with a long code line');
  });
});
