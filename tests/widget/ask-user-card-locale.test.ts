/** zh-CN by default, en on request (property, `lang`, provider), and every string overridable. */
import { describe, it, afterEach } from './helpers/bdd.js';
import { equal, includes } from './helpers/expect.js';
import { $, cleanup, mount, multiple, single, submit, textOf } from './helpers/card-fixtures.js';

afterEach(cleanup);

describe('locale and strings', () => {
  it('defaults to zh-CN', async () => {
    const { card } = await mount(single({ submitLabel: undefined }));
    equal(textOf(card, '[part~="submit-button"]'), '提交', 'submit');
    equal(textOf(card, '[part~="cancel-button"]'), '取消', 'cancel');
    equal(textOf(card, '[part~="recommended-badge"]'), '推荐', 'badge');
  });

  it('locale="en" switches every built-in string', async () => {
    const { card } = await mount(single({ submitLabel: undefined, allowCustom: true }), { locale: 'en' });
    equal(textOf(card, '[part~="submit-button"]'), 'Submit', 'submit');
    equal(textOf(card, '[part~="recommended-badge"]'), 'Recommended', 'badge');
    equal(textOf(card, '[part~="custom-label"]'), 'Other', 'other');
    await submit(card);
    equal(textOf(card, '#error-selections'), 'Choose an option, or describe your answer under “Other”', 'message');
  });

  it('follows the lang attribute, and changes live', async () => {
    const { card } = await mount(single({ submitLabel: undefined }));
    card.setAttribute('lang', 'en-GB');
    await card.updateComplete;
    equal(textOf(card, '[part~="submit-button"]'), 'Submit', 'en from lang');
    card.lang = 'zh';
    await card.updateComplete;
    equal(textOf(card, '[part~="submit-button"]'), '提交', 'back to zh');
  });

  it('locale wins over lang; an unknown tag falls back to zh-CN', async () => {
    const { card } = await mount(single({ submitLabel: undefined }), { locale: 'en' });
    card.setAttribute('lang', 'zh-CN');
    await card.updateComplete;
    equal(textOf(card, '[part~="submit-button"]'), 'Submit', 'locale wins');
    card.locale = 'fr';
    await card.updateComplete;
    equal(textOf(card, '[part~="submit-button"]'), '提交', 'unknown → default');
  });

  it('strings overrides any subset; the rest stay localized', async () => {
    const { card } = await mount(multiple({ submitLabel: undefined }), {
      locale: 'en',
      strings: { submit: 'Send it', multipleHint: 'Pick any' },
    });
    equal(textOf(card, '[part~="submit-button"]'), 'Send it', 'override');
    equal(textOf(card, '#hint'), 'Pick any', 'override');
    equal(textOf(card, '[part~="cancel-button"]'), 'Cancel', 'untouched');
  });

  it('submitLabel from the model beats the strings', async () => {
    const { card } = await mount(single({ submitLabel: '继续' }), { strings: { submit: 'x' } });
    equal(textOf(card, '[part~="submit-button"]'), '继续', 'submitLabel');
  });

  it('a provider locale applies unless the card sets its own', async () => {
    const provider = document.createElement('ask-user-provider');
    provider.locale = 'en';
    document.body.append(provider);
    await provider.updateComplete;
    const { card } = await mount(single({ status: 'expired' }), {}, provider);
    equal(textOf(card, '[part~="receipt-status"]'), 'Timed out', 'from provider');
    card.locale = 'zh-CN';
    await card.updateComplete;
    includes(textOf(card, '[part~="receipt-status"]'), '已超时', 'card wins');
    card.locale = undefined;
    await card.updateComplete;
    equal(textOf(card, '[part~="receipt-status"]'), 'Timed out', 'back to the provider');
    provider.locale = 'zh-CN';
    await provider.updateComplete;
    await card.updateComplete;
    equal($(card, '[part~="receipt-status"]').textContent, '已超时', 'provider change reaches the card');
  });
});
