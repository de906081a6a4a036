/** widget/strings.ts: both tables complete, locale tags resolved, overrides partial and text-only. */
import { describe, it } from './helpers/bdd.js';
import { deepEqual, equal } from './helpers/expect.js';
import { STRINGS, formatMessage, resolveLocale, resolveStrings } from '../../widget/strings.js';

describe('strings', () => {
  it('zh-CN and en define the same keys, none empty', () => {
    deepEqual(Object.keys(STRINGS.en).sort(), Object.keys(STRINGS['zh-CN']).sort());
    for (const [locale, table] of Object.entries(STRINGS)) {
      for (const [k, v] of Object.entries(table)) equal(v.length > 0, true, `${locale}.${k} non-empty`);
    }
  });

  it('carries the contract wording', () => {
    equal(STRINGS['zh-CN'].notResumable, '服务已重启，请重新发起任务');
    equal(STRINGS['zh-CN'].other, '其他说明');
    equal(STRINGS['zh-CN'].recommended, '推荐');
    equal(STRINGS['zh-CN'].continuing, '继续执行中…');
  });

  it('resolveLocale', () => {
    equal(resolveLocale('en-US'), 'en');
    equal(resolveLocale('EN'), 'en');
    equal(resolveLocale('zh-Hans-CN'), 'zh-CN');
    equal(resolveLocale('fr'), 'zh-CN');
    equal(resolveLocale(undefined), 'zh-CN');
  });

  it('resolveStrings overlays string overrides only', () => {
    const s = resolveStrings('en', { submit: 'Go', cancel: 5 as unknown as string, nonsense: 'x' } as never);
    equal(s.submit, 'Go');
    equal(s.cancel, 'Cancel');
    equal('nonsense' in s, false);
  });

  it('format fills known placeholders and leaves unknown ones visible', () => {
    equal(formatMessage('剩余时间 {time}', { time: '1:00' }), '剩余时间 1:00');
    equal(formatMessage('{a}{b}', { a: 1 }), '1{b}');
  });
});
