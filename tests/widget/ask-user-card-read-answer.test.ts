/** The pure helpers behind the card (widget/read-answer.ts): draft → wire answer, checks, countdown. */
import { describe, it } from './helpers/bdd.js';
import { deepEqual, equal } from './helpers/expect.js';
import {
  EMPTY_DRAFT,
  MAX_CUSTOM_INPUT,
  formatRemaining,
  isAskUserRequest,
  normalizeRequest,
  readAnswer,
  remainingMs,
} from '../../widget/read-answer.js';
import { problemKey, validateAnswer } from '../../widget/answer-checks.js';

const options = [
  { id: 'a', label: 'A' },
  { id: 'b', label: 'B' },
  { id: 'c', label: 'C' },
];

describe('readAnswer', () => {
  it('choice modes send checked ids in option order, dropping ids that are not options', () => {
    deepEqual(readAnswer({ mode: 'multiple', options }, { ...EMPTY_DRAFT, selected: ['c', 'zz', 'a'] }).selections, ['a', 'c']);
  });

  it('single keeps at most one id', () => {
    deepEqual(readAnswer({ mode: 'single', options }, { ...EMPTY_DRAFT, selected: ['b', 'a'] }).selections, ['a']);
  });

  it('the Other box counts only with allowCustom', () => {
    const draft = { ...EMPTY_DRAFT, other: 'x' };
    equal(readAnswer({ mode: 'toggle', options, allowCustom: true }, draft).customInput, 'x', 'with allowCustom');
    equal(readAnswer({ mode: 'toggle', options }, draft).customInput, '', 'without');
  });

  it('text modes send the text exactly as typed and no selections', () => {
    deepEqual(readAnswer({ mode: 'number', options }, { selected: ['a'], text: ' 007 ', other: 'o' }), {
      selections: [],
      customInput: ' 007 ',
      cancelled: false,
    });
  });
});

describe('validateAnswer', () => {
  const ans = (selections: string[], customInput = '') => ({ selections, customInput, cancelled: false });

  it('mirrors the server rules per mode', () => {
    equal(validateAnswer({ mode: 'single', options }, ans([])).ok, false, 'single empty');
    equal(validateAnswer({ mode: 'single', options, allowCustom: true }, ans([], 'mine')).ok, true, 'single custom');
    equal(validateAnswer({ mode: 'multiple', options }, ans([])).ok, true, 'multiple empty');
    equal(validateAnswer({ mode: 'toggle', options }, ans([])).ok, false, 'toggle empty');
    equal(validateAnswer({ mode: 'number' }, ans([], '1e3')).ok, true, 'number exponent');
    equal(validateAnswer({ mode: 'number' }, ans([], 'NaN')).ok, false, 'NaN');
    equal(validateAnswer({ mode: 'date' }, ans([], '2023-02-29')).ok, false, 'no Feb 29 in 2023');
    equal(validateAnswer({ mode: 'directory' }, ans([], 'a/b')).ok, true, 'relative');
    equal(validateAnswer({ mode: 'directory' }, ans([], 'a\0b')).ok, false, 'NUL');
    equal(validateAnswer({ mode: 'text' }, { selections: [], customInput: '', cancelled: true }).ok, true, 'cancel always ok');
  });

  it('refuses text over the contract limit before the server would', () => {
    const long = validateAnswer({ mode: 'text' }, ans([], 'x'.repeat(MAX_CUSTOM_INPUT + 1)));
    equal(long.ok ? '' : long.key, 'tooLong', 'key');
    equal(validateAnswer({ mode: 'text' }, ans([], 'x'.repeat(MAX_CUSTOM_INPUT))).ok, true, 'at the limit');
  });

  it('names the field and the sentence to show', () => {
    const v = validateAnswer({ mode: 'toggle', options }, ans([]));
    deepEqual(v.ok ? null : [v.field, v.key], ['selections', 'toggleAtLeastOne']);
  });
});

describe('problemKey', () => {
  it('words "selection required" per mode', () => {
    equal(problemKey('selection_required', { mode: 'single' }), 'chooseOne');
    equal(problemKey('selection_required', { mode: 'single', allowCustom: true }), 'chooseOneOrDescribe');
    equal(problemKey('selection_required', { mode: 'toggle' }), 'toggleAtLeastOne');
  });
});

describe('isAskUserRequest', () => {
  it('needs string id, toolCallId, title and mode (docs/protocol.md §3)', () => {
    equal(isAskUserRequest({ id: 'a', toolCallId: 'b', title: 'c', mode: 'single' }), true);
    equal(isAskUserRequest({ id: 'a', toolCallId: 'b', title: 'c' }), false);
    equal(isAskUserRequest({ id: 1, toolCallId: 'b', title: 'c', mode: 'single' }), false);
    equal(isAskUserRequest('nope'), false);
    equal(isAskUserRequest(undefined), false);
  });
});

describe('countdown', () => {
  it('remainingMs is null without a parsable deadline', () => {
    equal(remainingMs(undefined, 0), null);
    equal(remainingMs('soon', 0), null);
    equal(remainingMs('1970-01-01T00:00:01.000Z', 250), 750);
  });

  it('formatRemaining rounds up and switches to h:mm:ss past an hour', () => {
    equal(formatRemaining(0), '0:00');
    equal(formatRemaining(-5000), '0:00');
    equal(formatRemaining(1), '0:01');
    equal(formatRemaining(59_001), '1:00');
    equal(formatRemaining(3_600_000), '1:00:00');
    equal(formatRemaining(3_661_000), '1:01:01');
  });
});

describe('normalizeRequest and §9.3 previews', () => {
  it('keeps a string preview of an option, also in §9.2 questions, and drops one of another type', () => {
    const base = { id: 'ask_1', toolCallId: 'c', title: 'T' };
    const options = [
      { id: 'a', label: 'A', preview: '```\nx\n```' },
      { id: 'b', label: 'B', preview: 42 },
    ];
    const one = normalizeRequest({ ...base, mode: 'single', options } as never);
    deepEqual(one.options, [
      { id: 'a', label: 'A', preview: '```\nx\n```' },
      { id: 'b', label: 'B' },
    ]);
    const form = normalizeRequest({ ...base, mode: 'form', questions: [{ id: 'q', title: 'Q', mode: 'single', options }] } as never);
    deepEqual(form.questions?.[0]?.options?.[0], { id: 'a', label: 'A', preview: '```\nx\n```' });
  });
});
