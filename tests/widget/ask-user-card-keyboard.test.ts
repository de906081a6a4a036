/**
 * Keyboard-only use with real key presses (CDP input events through @web/test-runner-commands): Tab
 * into the card, arrows and Space on native controls, Enter to submit, Ctrl+Enter from a textarea.
 */
import { describe, it, afterEach } from './helpers/bdd.js';
import { sendKeys } from '@web/test-runner-commands';
import { deepEqual, equal, includes } from './helpers/expect.js';
import { $, cleanup, deepActiveElement, mount, multiple, number, settle, single, text, textOf, toggle } from './helpers/card-fixtures.js';

afterEach(cleanup);

const press = (key: string) => sendKeys({ press: key });

describe('keyboard only', () => {
  it('single: Tab to the radios, ArrowDown to choose, Tab to submit, Enter', async () => {
    const { card, calls } = await mount(single());
    equal(deepActiveElement(), $(card, 'fieldset'), 'starts on the question');
    await press('Tab');
    equal(deepActiveElement(), $(card, '#option-0'), 'first radio');
    await press('ArrowDown');
    equal($<HTMLInputElement>(card, '#option-1').checked, true, 'arrow chose the second');
    await press('Tab');
    equal(deepActiveElement(), $(card, '[part~="submit-button"]'), 'radio group is one tab stop');
    await press('Enter');
    await settle(card);
    deepEqual(calls, [{ selections: ['implement'], customInput: '', cancelled: false }]);
    equal(deepActiveElement(), $(card, '[part~="receipt"]'), 'focus on the receipt');
  });

  it('multiple: Space checks boxes, Space on the button submits', async () => {
    const { card, calls } = await mount(multiple());
    await press('Tab');
    await press('Space');
    await press('Tab');
    await press('Tab');
    await press('Space');
    await press('Tab');
    equal(deepActiveElement(), $(card, '[part~="submit-button"]'), 'on submit');
    await press('Space');
    await settle(card);
    deepEqual(calls, [{ selections: ['safe', 'skip'], customInput: '', cancelled: false }]);
  });

  it('toggle: switches flip with Space; an empty submit is refused and focus goes back to a switch', async () => {
    const { card, calls } = await mount(toggle());
    await press('Tab');
    await press('Tab');
    await press('Tab');
    await press('Tab');
    equal(deepActiveElement(), $(card, '[part~="submit-button"]'), 'on submit');
    await press('Enter');
    await settle(card);
    equal(calls.length, 0, 'refused');
    equal(deepActiveElement(), $(card, '#option-0'), 'focus on the first switch');
    await press('Space');
    await press('Enter');
    await settle(card);
    deepEqual(calls, [{ selections: ['safe'], customInput: '', cancelled: false }]);
  });

  it('text: type, Enter is a new line, Ctrl+Enter submits', async () => {
    const { card, calls } = await mount(text());
    await press('Tab');
    await sendKeys({ type: '第一行' });
    await press('Enter');
    await sendKeys({ type: 'second' });
    await sendKeys({ down: 'Control' });
    await press('Enter');
    await sendKeys({ up: 'Control' });
    await settle(card);
    deepEqual(calls, [{ selections: [], customInput: '第一行\nsecond', cancelled: false }]);
  });

  it('number: typing "1e" is refused in words and nothing is sent; "42" then goes as typed', async () => {
    const { card, calls } = await mount(number());
    await press('Tab');
    await sendKeys({ type: '1e' });
    await press('Enter');
    await settle(card);
    equal(calls.length, 0, 'nothing sent');
    includes(textOf(card, '#error-customInput'), '有效的数字', 'message');
    equal(deepActiveElement(), $(card, '#field'), 'focus stays on the field');
    await press('Backspace');
    await press('Backspace');
    await sendKeys({ type: '-3.50' });
    await press('Enter');
    await settle(card);
    deepEqual(calls, [{ selections: [], customInput: '-3.50', cancelled: false }]);
  });

  it('cancel: Tab past submit to cancel, Enter cancels', async () => {
    const { card, calls } = await mount(single());
    await press('Tab');
    await press('Tab');
    await press('Tab');
    equal(deepActiveElement(), $(card, '[part~="cancel-button"]'), 'on cancel');
    await press('Enter');
    await settle(card);
    deepEqual(calls, [{ selections: [], customInput: '', cancelled: true }]);
    equal(textOf(card, '[part~="receipt-status"]'), '已取消', 'receipt');
  });
});
