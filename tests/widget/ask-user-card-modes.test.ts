/**
 * Each mode renders its native control, reads exactly what the user chose or typed, and refuses what the
 * server's answer rules (plugin/contract/answer-rules.ts) would refuse — with the message next to the field and
 * nothing sent.
 */
import { describe, it, afterEach } from './helpers/bdd.js';
import { assert, deepEqual, equal, includes } from './helpers/expect.js';
import {
  $,
  $$,
  cleanup,
  date,
  directory,
  has,
  mount,
  multiple,
  number,
  pick,
  single,
  submit,
  text,
  textOf,
  toggle,
  type,
} from './helpers/card-fixtures.js';

afterEach(cleanup);

describe('single', () => {
  it('renders one radio per option inside a fieldset whose legend is the title', async () => {
    const { card } = await mount(single());
    const radios = $$<HTMLInputElement>(card, 'fieldset input[type="radio"]');
    equal(radios.length, 3, 'radios');
    equal(new Set(radios.map((r) => r.name)).size, 1, 'one radio group');
    equal(textOf(card, 'legend'), '请选择执行方式', 'legend');
    equal(textOf(card, '[part~="description"]'), '不同方式会影响接下来的工具权限。', 'description');
    equal(textOf(card, '[part~="submit-button"]'), '继续', 'submitLabel on the button');
  });

  it('shows option descriptions, wired with aria-describedby, and "推荐" in words', async () => {
    const { card } = await mount(single());
    const first = $<HTMLInputElement>(card, '#option-0');
    const descId = first.getAttribute('aria-describedby')!;
    equal(card.shadowRoot!.getElementById(descId)?.textContent, '只阅读并给出方案', 'described by its description');
    includes($(card, 'label[for="option-0"]').textContent, '推荐', 'recommended label');
    equal($$(card, '[part~="recommended-badge"]').length, 1, 'only the recommended option has the badge');
  });

  it('sends the chosen id, never the label', async () => {
    const { card, calls } = await mount(single());
    await pick(card, '直接实现');
    await pick(card, '先分析');
    await submit(card);
    deepEqual(calls, [{ selections: ['safe'], customInput: '', cancelled: false }]);
  });

  it('refuses an empty choice with a message next to the options and sends nothing', async () => {
    const { card, calls } = await mount(single());
    await submit(card);
    equal(calls.length, 0, 'calls');
    equal(textOf(card, '#error-selections'), '请选择一个选项', 'error');
    includes($(card, 'fieldset').getAttribute('aria-describedby'), 'error-selections', 'fieldset describedby');
    equal($(card, '#option-0').getAttribute('aria-invalid'), 'true', 'aria-invalid');
  });

  it('clears the message once the user fixes the answer', async () => {
    const { card } = await mount(single());
    await submit(card);
    assert(has(card, '#error-selections'), 'error shown');
    await pick(card, '跳过');
    assert(!has(card, '#error-selections'), 'error gone after choosing');
  });

  it('with allowCustom accepts the "其他说明" text alone, sent as typed', async () => {
    const { card, calls } = await mount(single({ allowCustom: true }));
    equal(textOf(card, '[part~="custom-label"]'), '其他说明', 'label');
    await submit(card);
    equal(textOf(card, '#error-selections'), '请选择一个选项，或在“其他说明”中填写', 'message for allowCustom');
    await type(card, '#other', '  两者都要  ');
    await submit(card);
    deepEqual(calls, [{ selections: [], customInput: '  两者都要  ', cancelled: false }]);
  });

  it('without allowCustom has no "Other" box', async () => {
    const { card } = await mount(single());
    assert(!has(card, '#other'), 'no other box');
  });
});

describe('multiple', () => {
  it('renders checkboxes and sends ids in option order, however they were clicked', async () => {
    const { card, calls } = await mount(multiple());
    equal($$(card, 'input[type="checkbox"]').length, 3, 'checkboxes');
    await pick(card, '跳过');
    await pick(card, '先分析');
    await submit(card);
    deepEqual(calls, [{ selections: ['safe', 'skip'], customInput: '', cancelled: false }]);
  });

  it('allows submitting none (zero or more ids)', async () => {
    const { card, calls } = await mount(multiple());
    await submit(card);
    deepEqual(calls, [{ selections: [], customInput: '', cancelled: false }]);
  });

  it('unchecking removes the id', async () => {
    const { card, calls } = await mount(multiple({ allowCustom: true }));
    await pick(card, '先分析');
    await pick(card, '直接实现');
    await pick(card, '先分析');
    await type(card, '#other', '另外加测试');
    await submit(card);
    deepEqual(calls, [{ selections: ['implement'], customInput: '另外加测试', cancelled: false }]);
  });
});

describe('toggle', () => {
  it('renders switches (role="switch" checkboxes) and requires at least one on', async () => {
    const { card, calls } = await mount(toggle());
    const switches = $$<HTMLInputElement>(card, 'input[type="checkbox"][role="switch"]');
    equal(switches.length, 3, 'switches');
    await submit(card);
    equal(calls.length, 0, 'nothing sent with every switch off');
    equal(textOf(card, '#error-selections'), '请至少开启一项', 'message');
    await pick(card, '直接实现');
    await submit(card);
    deepEqual(calls, [{ selections: ['implement'], customInput: '', cancelled: false }]);
  });
});

describe('text', () => {
  it('renders a textarea labelled by the title and refuses a blank answer', async () => {
    const { card, calls } = await mount(text());
    const area = $<HTMLTextAreaElement>(card, 'textarea#field');
    equal(area.getAttribute('aria-labelledby'), 'title', 'labelled by the legend');
    await type(card, '#field', '   ');
    await submit(card);
    equal(calls.length, 0, 'blank refused');
    equal(textOf(card, '#error-customInput'), '请填写回答', 'message');
    includes(area.getAttribute('aria-describedby'), 'error-customInput', 'describedby error');
    equal(area.getAttribute('aria-invalid'), 'true', 'aria-invalid');
    await type(card, '#field', '第一行\n第二行 ');
    await submit(card);
    deepEqual(calls, [{ selections: [], customInput: '第一行\n第二行 ', cancelled: false }]);
  });

  it('never shows an "Other" box even with allowCustom', async () => {
    const { card } = await mount(text({ allowCustom: true }));
    assert(!has(card, '#other'), 'no other box in text mode');
  });
});

describe('number', () => {
  it('renders input type=number and sends exactly the text typed', async () => {
    const { card, calls } = await mount(number());
    equal($<HTMLInputElement>(card, '#field').type, 'number', 'type');
    await type(card, '#field', '007.50');
    await submit(card);
    deepEqual(calls, [{ selections: [], customInput: '007.50', cancelled: false }]);
  });

  it('refuses an empty number', async () => {
    const { card, calls } = await mount(number());
    await submit(card);
    equal(calls.length, 0, 'nothing sent');
    equal(textOf(card, '#error-customInput'), '请输入有效的数字，例如 42 或 -3.5', 'message');
  });
});

describe('date', () => {
  it('renders input type=date and sends YYYY-MM-DD', async () => {
    const { card, calls } = await mount(date());
    equal($<HTMLInputElement>(card, '#field').type, 'date', 'type');
    await submit(card);
    equal(textOf(card, '#error-customInput'), '请输入有效的日期', 'empty date refused');
    await type(card, '#field', '2024-02-29');
    await submit(card);
    deepEqual(calls, [{ selections: [], customInput: '2024-02-29', cancelled: false }]);
  });
});

describe('directory', () => {
  it('renders a text box that asks for a path relative to the workspace', async () => {
    const { card } = await mount(directory());
    equal($<HTMLInputElement>(card, '#field').type, 'text', 'type');
    includes(textOf(card, '#hint'), '相对于工作区的路径', 'hint');
    includes($(card, '#field').getAttribute('aria-describedby'), 'hint', 'hint wired');
  });

  for (const bad of ['/etc', '..', 'a/../b', 'C:\\x', '~/x', '\\\\server\\share']) {
    it(`refuses ${JSON.stringify(bad)}`, async () => {
      const { card, calls } = await mount(directory());
      await type(card, '#field', bad);
      await submit(card);
      equal(calls.length, 0, 'nothing sent');
      includes(textOf(card, '#error-customInput'), '相对于工作区的路径', 'message');
    });
  }

  it('sends a relative path as typed', async () => {
    const { card, calls } = await mount(directory());
    await type(card, '#field', 'src/components/');
    await submit(card);
    deepEqual(calls, [{ selections: [], customInput: 'src/components/', cancelled: false }]);
  });
});

describe('requests the widget cannot use', () => {
  for (const [name, bad] of [
    ['null', null],
    ['no id', { toolCallId: 'c', title: 't', mode: 'single' }],
    ['numeric title', { id: 'ask_x', toolCallId: 'c', title: 5, mode: 'single' }],
    ['array', []],
  ] as const) {
    it(`renders nothing for ${name}`, async () => {
      const { card } = await mount(bad);
      equal(card.shadowRoot!.querySelector('[part~="base"]'), null, 'no card');
    });
  }

  it('an unknown mode shows the question, says so, and offers only cancel', async () => {
    const { card, calls } = await mount({ ...single(), mode: 'colour' });
    includes(textOf(card, '[part~="hint"]'), 'colour', 'names the mode');
    assert(!has(card, '[part~="submit-button"]'), 'no submit');
    $<HTMLButtonElement>(card, '[part~="cancel-button"]').click();
    await card.updateComplete;
    deepEqual(calls, [{ selections: [], customInput: '', cancelled: true }]);
  });

  it('a choice mode with no options cannot be submitted but can be cancelled', async () => {
    const { card, calls } = await mount(single({ options: [] }));
    await submit(card);
    equal(calls.length, 0, 'nothing sent');
    assert(has(card, '#error-selections'), 'message');
  });
});
