/**
 * docs/protocol.md §9.2 through the whole loop (demo app, real `openai` client, scripted model): three
 * questions in one call reach the card as one `form`, an answer out of bounds is refused with 422 naming
 * the question's field and leaves the card open, the fixed answers reach the model as one ToolResult,
 * compared as a raw string; the audit line and `interaction_resolved` carry lengths, never the text.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { all, first, getJson, postStream, shape } from './sse-client.js';
import { startHarness } from './harness.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { startRestartableServer } from '../helpers/restartable-server.js';
import { startScriptedModel } from '../helpers/scripted-model.js';
import { startRedisServer } from '../helpers/redis-server.js';
import { openStore } from '../../plugin/store/index.js';

const RELEASE = {
  title: 'Release plan',
  description: 'Three things before I cut the release.',
  submitLabel: 'Go',
  questions: [
    {
      id: 'plan',
      header: 'Plan',
      title: 'Which plan?',
      mode: 'single',
      options: [
        { id: 'canary', label: 'Canary first' },
        { id: 'all', label: 'Everyone at once' },
      ],
      default: 'canary',
    },
    { id: 'replicas', header: 'Replicas', title: 'How many replicas?', mode: 'number', min: 1, max: 5, step: 1 },
    { id: 'note', title: 'Anything for the changelog?', mode: 'text', required: false, maxLength: 200 },
  ],
};
const ask = (id: string, args: object = RELEASE) => ({ id, name: 'ask_user', arguments: args as Record<string, unknown> });
const body = (sessionId: string, requestId: string, answers: unknown[], cancelled = false) => ({
  sessionId,
  requestId,
  answers,
  cancelled,
});

test('three questions: one form card, a refused answer names its question, the fixed answers reach the model once, raw', async (t) => {
  const h = await startHarness({ turns: [{ toolCalls: [ask('call_plan')] }, { text: 'Cutting it.' }] });
  t.after(() => h.close());
  const chat = await postStream(`${h.url}/api/chat`, { sessionId: 's-form', message: 'release' });
  assert.deepEqual(shape(chat), ['user_input_required', 'done']);
  const card = first(chat, 'user_input_required');
  assert.equal(card.mode, 'form');
  assert.equal(card.title, 'Release plan');
  assert.equal(card.submitLabel, 'Go');
  assert.deepEqual(
    card.questions.map((q: any) => [q.id, q.mode, q.required]),
    [
      ['plan', 'single', true],
      ['replicas', 'number', true],
      ['note', 'text', false],
    ],
    'required is always said',
  );
  assert.equal(card.questions[1].max, 5);
  assert.equal((await getJson(`${h.url}/api/interactions/pending?sessionId=s-form`)).body.pending.questions.length, 3);

  const outOfBounds = await postStream(
    `${h.url}/api/chat/continue`,
    body('s-form', card.id, [
      { id: 'plan', selections: ['canary'], customInput: '' },
      { id: 'replicas', selections: [], customInput: '7' },
      { id: 'note', selections: [], customInput: '' },
    ]),
  );
  assert.equal(outOfBounds.status, 422);
  assert.equal(outOfBounds.json.error.code, 'invalid_answer');
  assert.equal(outOfBounds.json.error.field, 'answers[1].customInput');
  const oneQuestionBody = await postStream(`${h.url}/api/chat/continue`, {
    sessionId: 's-form',
    requestId: card.id,
    selections: ['canary'],
    customInput: '',
    cancelled: false,
  });
  assert.equal(oneQuestionBody.status, 422);
  assert.equal(oneQuestionBody.json.error.field, 'answers');
  assert.equal((await h.store.get(card.id))?.status, 'pending', 'refusals consume nothing');
  assert.equal(h.model.requests.length, 1);

  const secret = 'ship on Friday';
  const cont = await postStream(
    `${h.url}/api/chat/continue`,
    body('s-form', card.id, [
      { id: 'plan', selections: ['canary'], customInput: '' },
      { id: 'replicas', selections: [], customInput: '3' },
      { id: 'note', selections: [], customInput: secret },
    ]),
  );
  assert.equal(cont.status, 200);
  const exact =
    '{"answers":[{"id":"plan","selections":["canary"],"customInput":""},{"id":"replicas","selections":[],"customInput":"3"},{"id":"note","selections":[],"customInput":"ship on Friday"}],"cancelled":false}';
  assert.deepEqual(first(cont, 'tool_result'), { toolCallId: 'call_plan', name: 'ask_user', content: exact, isError: false });
  const resolved = first(cont, 'interaction_resolved');
  assert.deepEqual(resolved.answers, [
    { id: 'plan', selections: ['canary'], customInputLength: 0 },
    { id: 'replicas', selections: [], customInputLength: 1 },
    { id: 'note', selections: [], customInputLength: secret.length },
  ]);
  assert.equal(resolved.selections, undefined);
  assert.equal(h.model.requests.length, 2, 'the model is called once more');
  assert.deepEqual(h.model.requests[1]!.messages.at(-1), { role: 'tool', tool_call_id: 'call_plan', content: exact });
  const line = h.audit.find((e) => e.event === 'answered')!;
  assert.equal(line.mode, 'form');
  assert.deepEqual(line.answers, resolved.answers);
  assert.doesNotMatch(JSON.stringify(h.audit), /ship on Friday/, 'free text is never logged');

  const again = await postStream(
    `${h.url}/api/chat/continue`,
    body('s-form', card.id, [
      { id: 'plan', selections: ['all'], customInput: '' },
      { id: 'replicas', selections: [], customInput: '1' },
      { id: 'note', selections: [], customInput: '' },
    ]),
  );
  assert.equal(again.status, 409, 'one claim for the whole card');
  assert.deepEqual(Object.keys(again.json.error.receipt).sort(), ['at', 'requestId', 'status', 'toolCallId']);
});

test('an optional question may stay blank; a required one may not', async (t) => {
  const h = await startHarness({ turns: [{ toolCalls: [ask('call_blank')] }, { text: 'ok' }] });
  t.after(() => h.close());
  const card = first(await postStream(`${h.url}/api/chat`, { sessionId: 's-blank', message: 'go' }), 'user_input_required');
  const blankRequired = await postStream(
    `${h.url}/api/chat/continue`,
    body('s-blank', card.id, [
      { id: 'plan', selections: [], customInput: '' },
      { id: 'replicas', selections: [], customInput: '2' },
      { id: 'note', selections: [], customInput: '' },
    ]),
  );
  assert.equal(blankRequired.status, 422);
  assert.equal(blankRequired.json.error.field, 'answers[0].selections');
  const ok = await postStream(
    `${h.url}/api/chat/continue`,
    body('s-blank', card.id, [
      { id: 'plan', selections: ['all'], customInput: '' },
      { id: 'replicas', selections: [], customInput: '2' },
      { id: 'note', selections: [], customInput: '' },
    ]),
  );
  assert.equal(ok.status, 200);
  assert.match(first(ok, 'tool_result').content, /\{"id":"note","selections":\[\],"customInput":""\}\],"cancelled":false\}$/);
});

test('a cancel and a superseded card write the §9.2 closing contents', async (t) => {
  const h = await startHarness({
    // A cancel calls no model: the next message gets the next turn.
    turns: [{ toolCalls: [ask('call_c')] }, { toolCalls: [ask('call_s')] }, { text: 'new topic' }],
  });
  t.after(() => h.close());
  const one = first(await postStream(`${h.url}/api/chat`, { sessionId: 's-close', message: 'go' }), 'user_input_required');
  const cancel = await postStream(`${h.url}/api/chat/continue`, body('s-close', one.id, [], true));
  assert.equal(first(cancel, 'tool_result').content, '{"answers":[],"cancelled":true}');
  assert.deepEqual(first(cancel, 'interaction_resolved').answers, []);

  first(await postStream(`${h.url}/api/chat`, { sessionId: 's-close', message: 'again' }), 'user_input_required');
  const next = await postStream(`${h.url}/api/chat`, { sessionId: 's-close', message: 'something else' });
  assert.equal(
    all(next, 'tool_result').find((r: any) => r.toolCallId === 'call_s').content,
    '{"answers":[],"cancelled":true,"reason":"superseded"}',
  );
});

test('invalid combinations are an is_error ToolResult naming the field; nothing is shown', async (t) => {
  const bad = [
    [{ ...RELEASE, mode: 'text' }, /mode: with questions it goes on each question/],
    [
      { ...RELEASE, questions: [...RELEASE.questions, ...RELEASE.questions.slice(0, 2).map((q) => ({ ...q, id: `${q.id}2` }))] },
      /questions: Too big: expected array to have <=4 items/,
    ],
    [
      { ...RELEASE, questions: [RELEASE.questions[0], { ...RELEASE.questions[1], id: 'plan' }] },
      /questions\.1\.id: duplicate question id "plan"/,
    ],
    [{ ...RELEASE, questions: [{ ...RELEASE.questions[1], min: 6 }] }, /questions\.0\.min: min \(6\) is greater than max \(5\)/],
    [{ ...RELEASE, questions: [{ ...RELEASE.questions[0], id: 'a b' }] }, /questions\.0\.id/],
    [{ ...RELEASE, questions: [{ ...RELEASE.questions[0], header: 'x'.repeat(25) }] }, /questions\.0\.header/],
    [{ title: 'No mode' }, /mode: required \(or give questions\)/],
  ] as const;
  const h = await startHarness({
    turns: [{ toolCalls: bad.map(([args], i) => ask(`call_bad${i}`, args)) }, { text: 'I will ask properly.' }],
  });
  t.after(() => h.close());
  const chat = await postStream(`${h.url}/api/chat`, { sessionId: 's-badform', message: 'go' });
  assert.deepEqual(all(chat, 'user_input_required'), [], 'nothing is shown');
  const results = all(chat, 'tool_result');
  bad.forEach(([, pattern], i) => {
    const r = results.find((x: any) => x.toolCallId === `call_bad${i}`);
    assert.equal(r.isError, true);
    assert.match(r.content, pattern);
  });
});

test('kill -9 after a form card, restart on the same SQLite file: the answers resume the run exactly once', async (t) => {
  const dir = await makeTempDir('ask-user-form-restart-');
  const model = await startScriptedModel({ turns: [{ toolCalls: [ask('call_form_restart')] }, { text: 'Resumed.' }] });
  t.after(async () => {
    await model.close();
    await dir.remove();
  });
  const server = await startRestartableServer({
    store: `sqlite://${dir.file('ask.db')}`,
    env: { OPENAI_BASE_URL: model.baseURL, OPENAI_MODEL: 'scripted-test' },
  });
  t.after(() => server.stop());
  const card = first(await postStream(`${server.url}/api/chat`, { sessionId: 's-form-kill', message: 'release' }), 'user_input_required');
  await server.kill();

  await server.restart();
  const pending = (await getJson(`${server.url}/api/interactions/pending?sessionId=s-form-kill`)).body.pending;
  assert.deepEqual(
    { id: pending.id, mode: pending.mode, questions: pending.questions },
    { id: card.id, mode: 'form', questions: card.questions },
    'the card comes back whole',
  );
  const answers = [
    { id: 'plan', selections: ['all'], customInput: '' },
    { id: 'replicas', selections: [], customInput: '5' },
    { id: 'note', selections: [], customInput: '' },
  ];
  const cont = await postStream(`${server.url}/api/chat/continue`, body('s-form-kill', card.id, answers));
  assert.equal(cont.status, 200);
  const exact = `{"answers":${JSON.stringify(answers)},"cancelled":false}`;
  assert.deepEqual(model.requests.at(-1)!.messages.at(-1), { role: 'tool', tool_call_id: 'call_form_restart', content: exact });
  assert.equal(model.requests.length, 2, 'the model is called once after the restart');
});

for (const backend of ['sqlite', 'redis'] as const) {
  test(`a form card answered on the ${backend} store: its questions and bounds come back from the store intact`, async (t) => {
    const dir = await makeTempDir('ask-user-form-store-');
    const redis = backend === 'redis' ? await startRedisServer() : undefined;
    const store = await openStore(redis ? redis.url : `sqlite://${dir.file('form.db')}`);
    const h = await startHarness({ store, turns: [{ toolCalls: [ask('call_store')] }, { text: 'ok' }] });
    t.after(async () => {
      await h.close();
      await store.close();
      await redis?.stop();
      await dir.remove();
    });
    const card = first(await postStream(`${h.url}/api/chat`, { sessionId: `s-${backend}`, message: 'go' }), 'user_input_required');
    const answer = (n: string) => [
      { id: 'plan', selections: ['canary'], customInput: '' },
      { id: 'replicas', selections: [], customInput: n },
      { id: 'note', selections: [], customInput: '' },
    ];
    const refused = await postStream(`${h.url}/api/chat/continue`, body(`s-${backend}`, card.id, answer('2.5')));
    assert.equal(refused.json.error.field, 'answers[1].customInput', 'the stored step refuses 2.5');
    const cont = await postStream(`${h.url}/api/chat/continue`, body(`s-${backend}`, card.id, answer('2')));
    assert.equal(first(cont, 'tool_result').content, `{"answers":${JSON.stringify(answer('2'))},"cancelled":false}`);
  });
}
