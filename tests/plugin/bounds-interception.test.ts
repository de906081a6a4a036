/**
 * Interception of §9.1 arguments (docs/protocol.md §1, §9.1): an invalid combination is an error ToolResult
 * naming the field, with nothing stored or shown; a valid one is stored and announced with its fields as
 * given; a default never turns into an answer when the question closes without one.
 */
import { describe, it, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { createAskUserKit, memoryAuditLogger, openStore, type AskUserKit, type PendingStore } from '../../plugin/index.js';
import { recordingHost, type RecordingHost } from './harness.js';
import { recordingSink } from '../helpers/recording-sink.js';
import { allowAnyCaller } from '../../plugin/core/authorization.js';

const call = (id: string, args: unknown) => ({
  id,
  type: 'function' as const,
  function: { name: 'ask_user', arguments: JSON.stringify(args) },
});
const OPTS = [
  { id: 'a', label: 'A' },
  { id: 'b', label: 'B' },
];

describe('kit.intercept with §9.1 fields', () => {
  let store: PendingStore;
  let kit: AskUserKit;
  let host: RecordingHost;
  let audit: ReturnType<typeof memoryAuditLogger>;
  let clock: number;
  beforeEach(async () => {
    clock = Date.parse('2030-05-05T10:00:00Z');
    store = await openStore('memory', { now: () => clock });
    host = recordingHost(() => store);
    audit = memoryAuditLogger();
    kit = createAskUserKit({ authorize: allowAnyCaller, store, host, logger: audit, now: () => clock, ttlMs: 60_000, expiryTimers: false });
  });
  afterEach(async () => {
    await kit.close();
    await store.close();
  });

  const invalid: Array<[string, Record<string, unknown>, RegExp]> = [
    ['min on text', { title: 'x', mode: 'text', min: 1 }, /min: not used by mode "text"/],
    ['step on date', { title: 'x', mode: 'date', step: 1 }, /step: not used by mode "date"/],
    ['min > max', { title: 'x', mode: 'number', min: 6, max: 5 }, /min: min \(6\) is greater than max \(5\)/],
    ['date min > max', { title: 'x', mode: 'date', min: '2026-02-01', max: '2026-01-01' }, /min: min \(2026-02-01\) is greater than max/],
    ['a string min in number mode', { title: 'x', mode: 'number', min: '1' }, /min: in number mode it is a JSON number/],
    ['step 0', { title: 'x', mode: 'number', step: 0 }, /step: /],
    ['maxLength over 8000', { title: 'x', mode: 'text', maxLength: 8001 }, /maxLength: /],
    [
      'minLength > maxLength',
      { title: 'x', mode: 'directory', minLength: 9, maxLength: 3 },
      /minLength: minLength \(9\) is greater than maxLength \(3\)/,
    ],
    [
      'placeholder on a choice without allowCustom',
      { title: 'x', mode: 'single', options: OPTS, placeholder: 'p' },
      /placeholder: .*needs allowCustom: true/,
    ],
    [
      'maxLength on a choice without allowCustom',
      { title: 'x', mode: 'multiple', options: OPTS, maxLength: 5 },
      /maxLength: .*allowCustom/,
    ],
    [
      'minSelections > maxSelections',
      { title: 'x', mode: 'multiple', options: OPTS, minSelections: 2, maxSelections: 1 },
      /minSelections: minSelections \(2\) is greater than maxSelections \(1\)/,
    ],
    [
      'maxSelections over the options',
      { title: 'x', mode: 'multiple', options: OPTS, maxSelections: 3 },
      /maxSelections: maxSelections \(3\) is more than the 2 options/,
    ],
    [
      'minSelections 0 on toggle',
      { title: 'x', mode: 'toggle', options: OPTS, minSelections: 0 },
      /minSelections: on toggle it is at least 1/,
    ],
    [
      'selection bounds on single',
      { title: 'x', mode: 'single', options: OPTS, minSelections: 1 },
      /minSelections: not used by mode "single"/,
    ],
    [
      'a default naming an unknown id',
      { title: 'x', mode: 'single', options: OPTS, default: 'z' },
      /default: is not a valid answer to this question: "z" is not an option id/,
    ],
    ['a default breaking max', { title: 'x', mode: 'number', max: 5, default: '7' }, /default: .*at most 5/],
    ['a default off the step', { title: 'x', mode: 'number', step: 0.5, default: '0.3' }, /default: .*multiple of 0.5/],
    [
      'a default over maxSelections',
      { title: 'x', mode: 'multiple', options: OPTS, maxSelections: 1, default: ['a', 'b'] },
      /default: .*at most 1 option/,
    ],
    [
      'an array default in single mode',
      { title: 'x', mode: 'single', options: OPTS, default: ['a'] },
      /default: in single mode it is one option id/,
    ],
  ];
  for (const [name, args, message] of invalid) {
    it(`invalid §9.1 arguments (${name}): is_error ToolResult naming the field; nothing shown, nothing stored`, async () => {
      const sse = recordingSink();
      const r = await kit.intercept([call('bad', args)], { sessionId: 's1', sse });
      assert.equal(r.pause, false);
      assert.equal(r.errorResults.length, 1);
      const [err] = r.errorResults;
      assert.equal(err!.isError, true);
      assert.match(err!.content, /^ask_user was not shown to the user because its arguments are invalid: /);
      assert.match(err!.content, message);
      assert.deepEqual(sse.events, []);
      assert.equal(await store.currentOf('s1'), undefined);
      assert.equal(audit.entries.at(-1)?.reason, 'invalid_arguments');
    });
  }

  it('valid fields are stored and announced exactly as given, numbers as numbers, after the §3 fields', async () => {
    const sse = recordingSink();
    const bounds = { placeholder: 'how many', default: '0.3', min: -1.5, max: 2, step: 0.1 };
    const r = await kit.intercept([call('q', { title: 'Ratio?', mode: 'number', ...bounds })], { sessionId: 's1', sse });
    const id = r.interaction!.requestId;
    const expected = {
      id,
      toolCallId: 'q',
      sessionId: 's1',
      title: 'Ratio?',
      mode: 'number',
      expiresAt: '2030-05-05T10:01:00.000Z',
      resumable: true,
      ...bounds,
    };
    assert.deepEqual(sse.events, [{ event: 'user_input_required', data: expected }]);
    assert.equal(JSON.stringify(sse.events[0]!.data).includes('"step":0.1'), true);
    assert.deepEqual((await store.get(id))!.form, { title: 'Ratio?', mode: 'number', ...bounds });
  });

  it('choice fields: selection bounds, an array default, the Other box bounds', async () => {
    const args = {
      title: 'Which?',
      mode: 'multiple',
      options: OPTS,
      allowCustom: true,
      placeholder: 'Other…',
      minLength: 2,
      maxLength: 20,
      minSelections: 1,
      maxSelections: 2,
      default: ['b'],
    };
    const r = await kit.intercept([call('q', args)], { sessionId: 's1' });
    assert.deepEqual(r.event, {
      id: r.interaction!.requestId,
      toolCallId: 'q',
      sessionId: 's1',
      expiresAt: '2030-05-05T10:01:00.000Z',
      resumable: true,
      ...args,
    });
  });

  it('null §9.1 fields count as absent (strict tool calling sends them so)', async () => {
    const args = {
      title: 'Name?',
      mode: 'text',
      placeholder: null,
      default: null,
      min: null,
      max: null,
      step: null,
      minLength: null,
      maxLength: null,
      minSelections: null,
      maxSelections: null,
    };
    const r = await kit.intercept([call('q', args)], { sessionId: 's1' });
    assert.deepEqual(r.interaction!.form, { title: 'Name?', mode: 'text' });
    assert.deepEqual(Object.keys(r.event!).sort(), ['expiresAt', 'id', 'mode', 'resumable', 'sessionId', 'title', 'toolCallId']);
  });

  it('the seed shape keeps exactly the §3 event', async () => {
    const args = { title: 'T', mode: 'single', options: OPTS, allowCustom: true, submitLabel: 'Go', description: 'd' };
    const r = await kit.intercept([call('q', args)], { sessionId: 's1' });
    assert.deepEqual(Object.keys(r.event!), [
      'id',
      'toolCallId',
      'sessionId',
      'title',
      'mode',
      'expiresAt',
      'resumable',
      'description',
      'options',
      'allowCustom',
      'submitLabel',
    ]);
  });

  for (const status of ['expired', 'superseded'] as const) {
    it(`a default never becomes an answer: ${status} writes the plain ${status} ToolResult`, async () => {
      const r = await kit.intercept([call('q', { title: 'How many?', mode: 'number', default: '3', min: 1, max: 5 })], { sessionId: 's1' });
      if (status === 'expired') {
        clock += 60_000;
        await kit.expireDue('s1');
      } else {
        await kit.supersede('s1');
      }
      assert.equal(host.closedCalls[0]!.toolResultContent, `{"selections":[],"customInput":"","cancelled":true,"reason":"${status}"}`);
      const stored = await store.get(r.interaction!.requestId);
      assert.deepEqual(stored?.resolution?.answer, { selections: [], customInput: '', cancelled: true });
    });
  }
});
