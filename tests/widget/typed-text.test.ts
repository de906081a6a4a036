/** Typed text held to §9.1 `maxLength` in code points and to the body's limit in UTF-16 units (widget/typed-text.ts). */
import { describe, it } from './helpers/bdd.js';
import { deepEqual, equal } from './helpers/expect.js';
import { clipTyped } from '../../widget/typed-text.js';
import { MAX_CUSTOM_INPUT } from '../../widget/answer-fields.js';

describe('clipTyped', () => {
  it('leaves text within its bounds alone', () => {
    equal(clipTyped('abc', 3), undefined, 'at the bound');
    equal(clipTyped('😀😀😀😀😀', 5), undefined, 'five emoji are ten UTF-16 units and five code points');
    equal(clipTyped('a'.repeat(MAX_CUSTOM_INPUT), undefined), undefined, 'no maxLength: the body limit');
  });

  it('cuts code points, never half an emoji, just before the caret', () => {
    deepEqual(clipTyped('😀😀😀😀😀😀', 5), { value: '😀😀😀😀😀', caret: 10 }, 'at the end');
    deepEqual(clipTyped('a😀😀bc', 3, 5), { value: 'abc', caret: 1 }, 'what went in before the caret');
    deepEqual(clipTyped('abcdef', 3, 1), { value: 'bcd', caret: 0 }, 'what went in first, then from the end');
  });

  it('holds text without maxLength to the body’s UTF-16 units', () => {
    deepEqual(clipTyped('😀'.repeat(4001), undefined), { value: '😀'.repeat(4000), caret: MAX_CUSTOM_INPUT });
    deepEqual(clipTyped('😀'.repeat(4001), 8000), { value: '😀'.repeat(4000), caret: MAX_CUSTOM_INPUT }, 'whichever is less');
  });
});
