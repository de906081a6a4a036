/**
 * docs/protocol.md §9.1 on the card: each bound of each mode refuses the answer before anything is sent,
 * with a message next to the field that names the bound, and the fixed answer then goes out. The native
 * controls carry the value bounds (min, max, step); lengths are held in code points by the card itself, so
 * no minlength or maxlength (UTF-16 units). The field's hint says the bounds in words, and the new states
 * pass axe and keep the keyboard path.
 */
import { describe, it, afterEach } from './helpers/bdd.js';
import { sendKeys } from '@web/test-runner-commands';
import { checkA11y } from './helpers/axe.js';
import { assert, deepEqual, equal, includes } from './helpers/expect.js';
import {
  $,
  $$,
  cleanup,
  date,
  deepActiveElement,
  directory,
  has,
  mount,
  multiple,
  number,
  pick,
  settle,
  single,
  submit,
  text,
  textOf,
  toggle,
  type,
  type Submission,
} from './helpers/card-fixtures.js';
import type { AskUserCard, AskUserRequest } from '../../widget/ask-user-card.js';

afterEach(cleanup);

type Step = (card: AskUserCard) => Promise<void>;
const typeIn =
  (selector: string, value: string): Step =>
  (card) =>
    type(card, selector, value);
const picks =
  (...labels: string[]): Step =>
  async (card) => {
    for (const label of labels) await pick(card, label);
  };

interface Case {
  name: string;
  req: AskUserRequest;
  wrong: Step;
  field: 'selections' | 'customInput';
  message: string;
  fix: Step;
  sent: Submission;
}

const answer = (selections: string[], customInput = ''): Submission => ({ selections, customInput, cancelled: false });

const CASES: Case[] = [
  {
    name: 'number max',
    req: number({ max: 5 }),
    wrong: typeIn('#field', '7'),
    field: 'customInput',
    message: 'Must be at most 5',
    fix: typeIn('#field', '5'),
    sent: answer([], '5'),
  },
  {
    name: 'number min',
    req: number({ min: 1 }),
    wrong: typeIn('#field', '0'),
    field: 'customInput',
    message: 'Must be at least 1',
    fix: typeIn('#field', '1'),
    sent: answer([], '1'),
  },
  {
    name: 'number step from min',
    req: number({ min: 1, step: 0.5 }),
    wrong: typeIn('#field', '1.2'),
    field: 'customInput',
    message: 'Must be 1 plus a multiple of 0.5',
    fix: typeIn('#field', '2.5'),
    sent: answer([], '2.5'),
  },
  {
    name: 'number step from 0',
    req: number({ step: 0.1 }),
    wrong: typeIn('#field', '0.35'),
    field: 'customInput',
    message: 'Must be 0 plus a multiple of 0.1',
    fix: typeIn('#field', '0.3'),
    sent: answer([], '0.3'),
  },
  {
    name: 'date min',
    req: date({ min: '2026-01-01' }),
    wrong: typeIn('#field', '2025-12-31'),
    field: 'customInput',
    message: 'Must be 2026-01-01 or later',
    fix: typeIn('#field', '2026-01-01'),
    sent: answer([], '2026-01-01'),
  },
  {
    name: 'date max',
    req: date({ max: '2026-06-30' }),
    wrong: typeIn('#field', '2026-07-01'),
    field: 'customInput',
    message: 'Must be 2026-06-30 or earlier',
    fix: typeIn('#field', '2026-06-30'),
    sent: answer([], '2026-06-30'),
  },
  {
    name: 'text minLength',
    req: text({ minLength: 3 }),
    wrong: typeIn('#field', 'ab'),
    field: 'customInput',
    message: 'At least 3 characters',
    fix: typeIn('#field', 'abc'),
    sent: answer([], 'abc'),
  },
  {
    name: 'directory minLength',
    req: directory({ minLength: 4 }),
    wrong: typeIn('#field', 'src'),
    field: 'customInput',
    message: 'At least 4 characters',
    fix: typeIn('#field', 'src/a'),
    sent: answer([], 'src/a'),
  },
  {
    name: 'multiple minSelections',
    req: multiple({ minSelections: 2 }),
    wrong: picks('跳过'),
    field: 'selections',
    message: 'Choose at least 2',
    fix: picks('先分析'),
    sent: answer(['safe', 'skip']),
  },
  {
    name: 'multiple maxSelections',
    req: multiple({ maxSelections: 1 }),
    wrong: picks('先分析', '跳过'),
    field: 'selections',
    message: 'Choose at most 1',
    fix: picks('先分析'),
    sent: answer(['skip']),
  },
  {
    name: 'toggle minSelections',
    req: toggle({ minSelections: 2 }),
    wrong: picks('直接实现'),
    field: 'selections',
    message: 'Choose at least 2',
    fix: picks('跳过'),
    sent: answer(['implement', 'skip']),
  },
  {
    name: 'toggle maxSelections',
    req: toggle({ maxSelections: 2 }),
    wrong: picks('先分析', '直接实现', '跳过'),
    field: 'selections',
    message: 'Choose at most 2',
    fix: picks('直接实现'),
    sent: answer(['safe', 'skip']),
  },
  {
    name: 'single Other minLength',
    req: single({ allowCustom: true, minLength: 5 }),
    wrong: typeIn('#other', 'abc'),
    field: 'customInput',
    message: 'At least 5 characters',
    fix: typeIn('#other', 'abcde'),
    sent: answer([], 'abcde'),
  },
];

/** The control the message belongs to: the text box, or the first option of a choice. */
const controlOf = (card: AskUserCard, c: Case) =>
  c.field === 'selections' ? $(card, '#option-0') : $(card, c.req.mode === 'single' || c.req.mode === 'multiple' ? '#other' : '#field');

describe('§9.1 bounds are checked before sending', () => {
  for (const c of CASES) {
    it(`${c.name}: refused with the bound next to the field, then sent once fixed`, async () => {
      const { card, calls } = await mount(c.req, { locale: 'en' });
      await c.wrong(card);
      await submit(card);
      await settle(card);
      deepEqual(calls, [], 'nothing sent');
      equal(textOf(card, `#error-${c.field}`), c.message, 'message');
      equal(controlOf(card, c).getAttribute('aria-invalid'), 'true', 'the field is marked invalid');
      // An option's message describes the whole group (the fieldset); a text box's describes the box.
      const described = c.field === 'selections' ? $(card, 'fieldset') : controlOf(card, c);
      includes(described.getAttribute('aria-describedby'), `error-${c.field}`, 'the field is described by its message');
      includes(textOf(card, '[role="status"]'), c.message, 'announced');
      await checkA11y(card, `${c.name} refused`);
      await c.fix(card);
      equal(has(card, `#error-${c.field}`), false, 'the message goes once the answer is fixed');
      await submit(card);
      await settle(card);
      deepEqual(calls, [c.sent], 'sent once fixed');
    });
  }

  it('says the bound in Chinese too', async () => {
    const cases: Array<[AskUserRequest, string, string]> = [
      [number({ max: 5 }), '7', '不能大于 5'],
      [number({ min: 2 }), '1', '不能小于 2'],
      [date({ min: '2026-01-01' }), '2025-01-01', '不能早于 2026-01-01'],
      [text({ minLength: 4 }), 'abc', '至少 4 个字符'],
    ];
    for (const [req, value, message] of cases) {
      const { card, calls } = await mount(req);
      await type(card, '#field', value);
      await submit(card);
      equal(textOf(card, '#error-customInput'), message, `${req.mode} message`);
      deepEqual(calls, [], 'nothing sent');
    }
    const { card } = await mount(multiple({ maxSelections: 1 }));
    await pick(card, '先分析');
    await pick(card, '跳过');
    await submit(card);
    equal(textOf(card, '#error-selections'), '最多选择 1 项', 'selections message');
  });

  it('an empty Other box is not held to minLength', async () => {
    const { card, calls } = await mount(single({ allowCustom: true, minLength: 5 }));
    await pick(card, '跳过');
    await type(card, '#other', 'abc');
    await submit(card);
    equal(textOf(card, '#error-customInput'), '至少 5 个字符', 'a typed Other box is held to it');
    await type(card, '#other', '');
    await submit(card);
    await settle(card);
    deepEqual(calls, [answer(['skip'])]);
  });
});

describe('§9.1 bounds on the native controls', () => {
  const attrs = (el: Element, ...names: string[]) => Object.fromEntries(names.map((n) => [n, el.getAttribute(n)]));

  it('number: min, max and step', async () => {
    const { card } = await mount(number({ min: 1, max: 10, step: 0.5 }), { locale: 'en' });
    deepEqual(attrs($(card, '#field'), 'min', 'max', 'step'), { min: '1', max: '10', step: '0.5' });
    const hint = textOf(card, '#hint');
    includes(hint, 'From 1 to 10. In steps of 0.5', 'hint');
    includes($(card, '#field').getAttribute('aria-describedby'), 'hint', 'described by the hint');
    const plain = await mount(number());
    deepEqual(attrs($(plain.card, '#field'), 'min', 'max', 'step'), { min: null, max: null, step: 'any' }, 'no bounds');
  });

  it('number: the hint’s sentences are punctuated, in English and in Chinese', async () => {
    const hints: Array<[Partial<AskUserRequest>, 'en' | 'zh-CN', string]> = [
      [{}, 'en', 'Enter a number, such as 42 or -3.5'],
      [{ min: 1, max: 9 }, 'en', 'Enter a number, such as 42 or -3.5. From 1 to 9.'],
      [{ min: 1, max: 9, step: 0.5 }, 'en', 'Enter a number, such as 42 or -3.5. From 1 to 9. In steps of 0.5.'],
      [{ step: 0.5 }, 'en', 'Enter a number, such as 42 or -3.5. In steps of 0.5.'],
      [{}, 'zh-CN', '请输入数字，例如 42 或 -3.5'],
      [{ min: 1, max: 9 }, 'zh-CN', '请输入数字，例如 42 或 -3.5。范围 1 至 9。'],
      [{ min: 1, max: 9, step: 0.5 }, 'zh-CN', '请输入数字，例如 42 或 -3.5。范围 1 至 9，步长 0.5。'],
      [{ step: 0.5 }, 'zh-CN', '请输入数字，例如 42 或 -3.5。步长 0.5。'],
    ];
    for (const [bounds, locale, hint] of hints) {
      const { card } = await mount(number(bounds), { locale });
      equal(textOf(card, '#hint'), hint, `${locale} ${JSON.stringify(bounds)}`);
    }
  });

  it('date: min and max', async () => {
    const { card } = await mount(date({ min: '2026-01-01', max: '2026-12-31' }));
    deepEqual(attrs($(card, '#field'), 'min', 'max'), { min: '2026-01-01', max: '2026-12-31' });
    includes(textOf(card, '#hint'), '范围 2026-01-01 至 2026-12-31', 'hint');
  });

  it('text and directory: no minlength or maxlength (UTF-16 units); the hint says the bounds', async () => {
    for (const make of [text, directory]) {
      const { card } = await mount(make({ minLength: 2, maxLength: 40 }), { locale: 'en' });
      deepEqual(attrs($(card, '#field'), 'minlength', 'maxlength'), { minlength: null, maxlength: null }, make.name);
      includes(textOf(card, '#hint'), '2 to 40 characters', `${make.name} hint`);
      includes($(card, '#field').getAttribute('aria-describedby'), 'hint', `${make.name} described by the hint`);
    }
    const { card } = await mount(text({ maxLength: 12 }));
    equal(textOf(card, '#hint'), '最多 12 个字符', 'a lone bound');
  });

  it('the Other box: no minlength or maxlength, and a hint it is described by', async () => {
    const { card } = await mount(multiple({ allowCustom: true, minLength: 3, maxLength: 20 }), { locale: 'en' });
    deepEqual(attrs($(card, '#other'), 'minlength', 'maxlength'), { minlength: null, maxlength: null });
    equal(textOf(card, '#other-hint'), '3 to 20 characters', 'hint');
    equal($(card, '#other').getAttribute('aria-describedby'), 'other-hint', 'described by the hint');
  });

  it('selections: the hint says how many, and each option is described by it', async () => {
    const { card } = await mount(multiple({ minSelections: 1, maxSelections: 2 }), { locale: 'en' });
    equal(textOf(card, '#hint'), 'Choose 1 to 2', 'hint');
    for (const input of $$(card, 'input[part~="control"]')) includes(input.getAttribute('aria-describedby'), 'hint', 'described by');
    const t = await mount(toggle({ minSelections: 2 }));
    equal(textOf(t.card, '#hint'), '至少选择 2 项', 'toggle hint');
  });

  it('axe: bounds, hints and placeholders on every mode', async () => {
    // Each with the element that shows its bounds.
    const reqs: Array<[AskUserRequest, string]> = [
      [number({ min: 1, max: 10, step: 0.5, placeholder: '1–10' }), '#field[step="0.5"][placeholder="1–10"]'],
      [date({ min: '2026-01-01', max: '2026-12-31' }), '#field[min="2026-01-01"]'],
      [text({ minLength: 2, maxLength: 40, placeholder: '简短描述' }), '#field[placeholder="简短描述"] ~ #hint'],
      [directory({ maxLength: 60, placeholder: 'out/' }), '#field[placeholder="out/"] ~ #hint'],
      [multiple({ minSelections: 1, maxSelections: 2, allowCustom: true, maxLength: 20, placeholder: '其他' }), '#other-hint'],
      [toggle({ minSelections: 2 }), '#hint'],
    ];
    for (const [req, shows] of reqs) {
      const { card } = await mount(req);
      assert(has(card, shows), `${req.mode} shows ${shows}`);
      await checkA11y(card, `${req.mode} with bounds`);
    }
    const refused = await mount(toggle({ minSelections: 2 }));
    await pick(refused.card, '跳过');
    await submit(refused.card);
    equal(textOf(refused.card, '#error-selections'), '至少选择 2 项', 'refused');
    await checkA11y(refused.card, 'toggle refused by minSelections');
  });
});

describe('§9.1 and the keyboard', () => {
  const press = (key: string) => sendKeys({ press: key });

  it('number with bounds: type, Enter refuses and focuses the field, fix, Enter sends', async () => {
    const { card, calls } = await mount(number({ min: 1, max: 5 }), { locale: 'en' });
    await press('Tab');
    equal(deepActiveElement(), $(card, '#field'), 'on the field');
    await sendKeys({ type: '9' });
    await press('Enter');
    await settle(card);
    deepEqual(calls, [], 'nothing sent');
    equal(textOf(card, '#error-customInput'), 'Must be at most 5', 'message');
    equal(deepActiveElement(), $(card, '#field'), 'focus on the invalid field');
    await press('Backspace');
    await sendKeys({ type: '4' });
    await press('Enter');
    await settle(card);
    deepEqual(calls, [answer([], '4')], 'sent');
  });

  it('multiple with maxSelections: Space past the bound is refused, Space to fix, submit', async () => {
    const { card, calls } = await mount(multiple({ maxSelections: 1 }), { locale: 'en' });
    await press('Tab');
    await press('Space');
    await press('Tab');
    await press('Space');
    await press('Tab');
    await press('Tab');
    equal(deepActiveElement(), $(card, '[part~="submit-button"]'), 'on submit');
    await press('Enter');
    await settle(card);
    deepEqual(calls, [], 'nothing sent');
    equal(textOf(card, '#error-selections'), 'Choose at most 1', 'message');
    const focused = deepActiveElement();
    assert(focused instanceof HTMLInputElement && focused.checked, 'focus on a checked option');
    await press('Space');
    await settle(card);
    equal(has(card, '#error-selections'), false, 'fixed');
    await press('Tab');
    await press('Tab');
    await press('Tab');
    await press('Enter');
    await settle(card);
    equal(calls.length, 1, 'sent');
  });
});

describe('§9.1 maxLength counts code points as the user types', () => {
  const EMOJI = '😀';

  it('five emoji fit maxLength 5 in the text box, the directory box and the Other box; a sixth is not taken', async () => {
    for (const [req, selector] of [
      [text({ maxLength: 5 }), '#field'],
      [directory({ maxLength: 5 }), '#field'],
      [single({ allowCustom: true, maxLength: 5 }), '#other'],
    ] as const) {
      const { card, calls } = await mount(req, { locale: 'en' });
      const field = $<HTMLInputElement | HTMLTextAreaElement>(card, selector);
      field.focus();
      await sendKeys({ type: EMOJI.repeat(5) });
      await card.updateComplete;
      equal(field.value, EMOJI.repeat(5), `${req.mode}: five emoji typed`);
      await sendKeys({ type: `${EMOJI}x` });
      await card.updateComplete;
      equal(field.value, EMOJI.repeat(5), `${req.mode}: nothing past the fifth`);
      await submit(card);
      await settle(card);
      deepEqual(calls, [answer([], EMOJI.repeat(5))], `${req.mode}: sent`);
    }
  });

  it('what was typed or pasted past the bound is cut where it went in; the text already there stays', async () => {
    const { card } = await mount(text({ maxLength: 5 }));
    await type(card, '#field', 'abc');
    const field = $<HTMLTextAreaElement>(card, '#field');
    // A paste of "XYZ" after the "a".
    field.setRangeText('XYZ', 1, 1, 'end');
    field.dispatchEvent(new InputEvent('input', { bubbles: true, composed: true, inputType: 'insertFromPaste' }));
    await card.updateComplete;
    equal(field.value, 'aXYbc', 'the paste is cut, the rest kept');
    deepEqual([field.selectionStart, field.selectionEnd], [3, 3], 'the caret after what was taken');
  });

  it('while an input method composes the text is left alone; it is clipped when the composition ends', async () => {
    const { card, calls } = await mount(multiple({ allowCustom: true, maxLength: 3 }));
    const other = $<HTMLTextAreaElement>(card, '#other');
    other.value = '你好世界';
    other.dispatchEvent(new InputEvent('input', { bubbles: true, composed: true, isComposing: true, inputType: 'insertCompositionText' }));
    await card.updateComplete;
    equal(other.value, '你好世界', 'mid-composition');
    other.dispatchEvent(new CompositionEvent('compositionend', { bubbles: true, composed: true, data: '你好世界' }));
    await card.updateComplete;
    equal(other.value, '你好世', 'once composed');
    await submit(card);
    await settle(card);
    deepEqual(calls, [answer([], '你好世')], 'sent as shown');
  });
});
