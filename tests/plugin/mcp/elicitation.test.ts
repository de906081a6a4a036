/**
 * Contract §10 against a real MCP server from the SDK over its streamable HTTP transport on loopback: a
 * tool that elicits becomes one card on the chat stream of the run that called it; the card's answer goes
 * back to the MCP server as `accept` with typed content (once), its cancel as `decline`; an invalid answer
 * is refused with 422 and can be fixed; a schema outside the mapping is declined without showing anything;
 * a kit that does not hold the MCP request (a restart) shows the card as not resumable.
 */
import { after, before, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { startScriptedModel, type ScriptedModel } from '../../helpers/scripted-model.js';
import { parseSse } from '../harness.js';
import { mcpWorld } from './mcp-host.js';

const MEETING_SCHEMA = {
  type: 'object',
  properties: {
    date: { type: 'string', format: 'date', title: 'Day' },
    duration: { type: 'integer', title: 'Minutes', minimum: 15, maximum: 120, default: 30 },
    attendees: {
      type: 'array',
      title: 'Who',
      items: {
        anyOf: [
          { const: 'ana', title: 'Ana' },
          { const: 'bo', title: 'Bo' },
        ],
      },
      minItems: 1,
    },
    confirm: { type: 'boolean', title: 'Send invites?' },
    email: { type: 'string', format: 'email', title: 'Reply to' },
  },
  required: ['date', 'duration', 'attendees', 'confirm'],
};

let model: ScriptedModel;

const setup = (t: TestContext) => mcpWorld(t, model, MEETING_SCHEMA);
before(async () => {
  model = await startScriptedModel({ fallback: { text: 'booked' } });
});
after(() => model.close());

const answers = (duration: string) => [
  { id: 'date', selections: [], customInput: '2026-12-10' },
  { id: 'duration', selections: [], customInput: duration },
  { id: 'attendees', selections: ['ana', 'bo'], customInput: '' },
  { id: 'confirm', selections: ['true'], customInput: '' },
  { id: 'email', selections: [], customInput: '' },
];

test('an elicitation becomes one card; a wrong answer is refused 422, the fixed one goes back typed, once', async (t) => {
  const world = await setup(t);
  const meetings = await world.meetings();
  const host = await world.host(meetings.url);
  model.enqueue({ toolCalls: [{ id: 'call_book', name: 'book_meeting', arguments: {} }] }, { text: 'booked' });
  const { card, rest } = await host.chatUntilCard('s-mcp');
  assert.ok(card, 'the card reached the chat stream');
  assert.equal(card.mode, 'form');
  assert.equal(card.title, 'Book a meeting / 预约会议');
  assert.equal(card.description, 'Pick the day, the length and who comes. / 选择日期、时长和参会人。');
  assert.deepEqual(
    card.questions.map((q: any) => [q.id, q.mode, q.required]),
    [
      ['date', 'date', true],
      ['duration', 'number', true],
      ['attendees', 'multiple', true],
      ['confirm', 'single', true],
      ['email', 'text', false],
    ],
  );
  assert.deepEqual([card.questions[1].min, card.questions[1].max, card.questions[1].step, card.questions[1].default], [15, 120, 1, '30']);
  assert.deepEqual(card.questions[3].options, [
    { id: 'true', label: 'Yes' },
    { id: 'false', label: 'No' },
  ]);
  assert.equal(card.questions[4].format, 'email');

  const base = { sessionId: 's-mcp', requestId: card.id, cancelled: false };
  const wrong = await host.post('/api/chat/continue', { ...base, answers: answers('200') });
  assert.equal(wrong.status, 422, await wrong.clone().text());
  assert.equal(((await wrong.json()) as any).error.field, 'answers[1].customInput');
  const badEmail = await host.post('/api/chat/continue', {
    ...base,
    answers: answers('45').map((a) => (a.id === 'email' ? { ...a, customInput: 'nope' } : a)),
  });
  assert.equal(((await badEmail.json()) as any).error.field, 'answers[4].customInput', 'the format is checked on the answer');
  assert.equal(meetings.results.length, 0, 'nothing reached the MCP server yet');

  const ok = await host.post('/api/chat/continue', { ...base, answers: answers('45') });
  assert.equal(ok.status, 200);
  const frames = parseSse(await ok.text()).frames;
  assert.deepEqual(
    frames.map((f) => f.event),
    ['interaction_resolved', 'done'],
  );
  const chat = await rest;
  const result = chat.find((f) => f.event === 'tool_result' && (f.data as any).toolCallId === 'call_book');
  assert.ok(result, 'the MCP tool finished inside the run');
  assert.deepEqual(meetings.results, [
    { action: 'accept', content: { date: '2026-12-10', duration: 45, attendees: ['ana', 'bo'], confirm: true } },
  ]);
  assert.deepEqual(chat.at(-1)!.data, { reason: 'completed' });
  const again = await host.post('/api/chat/continue', { ...base, answers: answers('60') });
  assert.equal(again.status, 409, 'a duplicate is refused');
  assert.equal(meetings.results.length, 1, 'the MCP server received exactly one result');
});

test("the card's cancel answers decline; a schema outside the mapping is declined without a card", async (t) => {
  const world = await setup(t);
  const meetings = await world.meetings();
  // Valid MCP (primitive properties only), but more questions than a card holds.
  const many = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`field${i}`, { type: 'string' }]));
  const nested = await world.meetings({ type: 'object', properties: many });
  const declined: string[] = [];
  const host = await world.host(meetings.url);
  const other = await world.host(nested.url, { declined });
  model.enqueue({ toolCalls: [{ id: 'call_decl', name: 'book_meeting', arguments: {} }] }, { text: 'fine' });
  const { card, rest } = await host.chatUntilCard('s-decline');
  const cancelled = await host.post('/api/chat/continue', { sessionId: 's-decline', requestId: card.id, answers: [], cancelled: true });
  assert.deepEqual(
    parseSse(await cancelled.text()).frames.map((f) => f.event),
    ['interaction_resolved', 'done'],
  );
  await rest;
  assert.deepEqual(meetings.results, [{ action: 'decline' }]);

  model.enqueue({ toolCalls: [{ id: 'call_nested', name: 'book_meeting', arguments: {} }] }, { text: 'fine' });
  const shown = await other.chatUntilCard('s-nested');
  assert.equal(shown.card, undefined, 'nothing was shown');
  assert.deepEqual(nested.results, [{ action: 'decline' }]);
  assert.match(declined.join('\n'), /requestedSchema has 21 properties; a card takes 1 to 20/, 'and it was logged');
});

test('a kit that does not hold the MCP request (after a restart) shows the card as not resumable', async (t) => {
  const world = await setup(t);
  const meetings = await world.meetings();
  const host = await world.host(meetings.url);
  const restarted = await world.host(meetings.url);
  model.enqueue({ toolCalls: [{ id: 'call_lost', name: 'book_meeting', arguments: {} }] }, { text: 'stopped' });
  const { card, rest } = await host.chatUntilCard('s-lost');
  const pending = (await (await fetch(`${restarted.url}/api/interactions/pending?sessionId=s-lost`)).json()) as any;
  assert.equal(pending.pending.id, card.id);
  assert.equal(pending.pending.resumable, false);
  const refused = await restarted.post('/api/chat/continue', {
    sessionId: 's-lost',
    requestId: card.id,
    answers: answers('30'),
    cancelled: false,
  });
  assert.equal(refused.status, 409);
  assert.equal(((await refused.json()) as any).error.code, 'not_resumable');
  // The process that holds the request can still answer it; the run then ends as usual.
  const own = await host.post('/api/chat/continue', { sessionId: 's-lost', requestId: card.id, answers: [], cancelled: true });
  assert.equal(own.status, 200);
  await own.text();
  await rest;
  assert.deepEqual(meetings.results, [{ action: 'decline' }]);
});

test('an elicitation card left to expire answers the MCP server cancel, and the run goes on', async (t) => {
  const world = await setup(t);
  const meetings = await world.meetings();
  const host = await world.host(meetings.url, { ttlMs: 1_000 });
  model.enqueue({ toolCalls: [{ id: 'call_exp', name: 'book_meeting', arguments: {} }] }, { text: 'later then' });
  const { card, rest } = await host.chatUntilCard('s-exp');
  assert.ok(card);
  const chat = await rest;
  assert.deepEqual(meetings.results, [{ action: 'cancel' }]);
  assert.equal((chat.find((f) => f.event === 'tool_result')!.data as any).content, 'Not booked: the user answered cancel.');
  assert.deepEqual(chat.at(-1)!.data, { reason: 'completed' });
});

test('URL mode: a link card shows the message and the link; opening it answers accept, once; another session is refused', async (t) => {
  const world = await setup(t);
  const meetings = await world.meetings();
  const host = await world.host(meetings.url);
  model.enqueue({ toolCalls: [{ id: 'call_link', name: 'connect_calendar', arguments: {} }] }, { text: 'connected' });
  const { card, rest } = await host.chatUntilCard('s-link');
  assert.equal(card.mode, 'url');
  assert.match(card.url, /^http:\/\/127\.0\.0\.1:\d+\/connect\/[\w-]+$/);
  assert.equal(card.title, 'Connect your calendar / 连接日历');
  assert.match(card.description, /^Sign in on the calendar page/);
  assert.equal(card.questions, undefined);
  assert.equal(card.resumable, true);
  const restored = await host.pending('s-link');
  assert.equal(restored.pending.id, card.id, 'a refresh finds the same card');
  assert.equal(restored.pending.url, card.url);

  const base = { sessionId: 's-link', requestId: card.id, cancelled: false };
  const withText = await host.post('/api/chat/continue', { ...base, selections: [], customInput: 'hi' });
  assert.equal(withText.status, 422, 'a link card takes no text');
  const foreign = await host.post('/api/chat/continue', { ...base, sessionId: 's-other', selections: [], customInput: '' });
  assert.equal(foreign.status, 403);
  assert.equal(((await foreign.json()) as any).error.code, 'session_mismatch');
  assert.equal(meetings.results.length, 0, 'nothing reached the MCP server yet');

  const opened = await host.post('/api/chat/continue', { ...base, selections: [], customInput: '' });
  assert.equal(opened.status, 200);
  const resolved = parseSse(await opened.text()).frames;
  assert.deepEqual(
    resolved.map((f) => f.event),
    ['interaction_resolved', 'done'],
  );
  const chat = await rest;
  assert.equal((chat.find((f) => f.event === 'tool_result')!.data as any).content, 'The user opened the calendar sign-in page.');
  const again = await host.post('/api/chat/continue', { ...base, selections: [], customInput: '' });
  assert.equal(again.status, 409, 'a duplicate is refused');
  assert.deepEqual(meetings.results, [{ action: 'accept' }], 'the MCP server received exactly one result');
  assert.equal((await host.pending('s-link')).pending, null);
});

test('URL mode: the cancel answers decline; a link that is not http(s) is declined unseen and not logged', async (t) => {
  const world = await setup(t);
  const meetings = await world.meetings();
  const scripted = await world.meetings(MEETING_SCHEMA, 'javascript:alert(document.cookie)//secret-token');
  const declined: string[] = [];
  const host = await world.host(meetings.url);
  const other = await world.host(scripted.url, { declined });
  model.enqueue({ toolCalls: [{ id: 'call_no', name: 'connect_calendar', arguments: {} }] }, { text: 'fine' });
  const { card, rest } = await host.chatUntilCard('s-link-no');
  const no = await host.post('/api/chat/continue', {
    sessionId: 's-link-no',
    requestId: card.id,
    selections: [],
    customInput: '',
    cancelled: true,
  });
  assert.equal(no.status, 200);
  await no.text();
  await rest;
  assert.deepEqual(meetings.results, [{ action: 'decline' }]);

  model.enqueue({ toolCalls: [{ id: 'call_js', name: 'connect_calendar', arguments: {} }] }, { text: 'fine' });
  const shown = await other.chatUntilCard('s-link-js');
  assert.equal(shown.card, undefined, 'nothing was shown');
  assert.equal((await other.pending('s-link-js')).pending, null);
  assert.deepEqual(scripted.results, [{ action: 'decline' }]);
  assert.match(declined.join('\n'), /not an http\(s\) link/, 'it was logged');
  assert.doesNotMatch(declined.join('\n'), /secret-token|javascript/, 'without the link itself');
});

test('with the AI SDK runtime the card comes on the chat stream too, and the answer reaches the MCP server once', async (t) => {
  const world = await setup(t);
  const meetings = await world.meetings();
  const host = await world.host(meetings.url, { runtime: 'ai-sdk' });
  model.enqueue({ toolCalls: [{ id: 'call_ai', name: 'connect_calendar', arguments: {} }] }, { text: 'connected' });
  const { card, rest } = await host.chatUntilCard('s-ai');
  assert.ok(card, 'the card reached the chat stream');
  assert.equal(card.mode, 'url');
  const ok = await host.post('/api/chat/continue', {
    sessionId: 's-ai',
    requestId: card.id,
    selections: [],
    customInput: '',
    cancelled: false,
  });
  assert.equal(ok.status, 200);
  await ok.text();
  const chat = await rest;
  assert.equal((chat.find((f) => f.event === 'tool_result')!.data as any).content, 'The user opened the calendar sign-in page.');
  assert.deepEqual(chat.at(-1)!.data, { reason: 'completed' });
  assert.deepEqual(meetings.results, [{ action: 'accept' }]);
});

for (const runtime of ['loop', 'ai-sdk'] as const) {
  test(`a reload while the card is open (${runtime}): the run goes on (§11), the reloaded page picks its stream up with the card, and the answer's run arrives on it`, async (t) => {
    const world = await setup(t);
    const meetings = await world.meetings();
    const host = await world.host(meetings.url, { runtime });
    model.enqueue({ toolCalls: [{ id: 'call_reload', name: 'book_meeting', arguments: {} }] }, { text: 'booked after the reload' });
    const sessionId = `s-reload-${runtime}`;
    const { card, rest, leave } = await host.chatUntilCard(sessionId);
    leave();
    const before = await rest;
    assert.ok(!before.some((f) => f.event === 'done'), 'the first page saw no end of the run');
    const restored = await host.pending(sessionId);
    assert.equal(restored.pending.id, card.id, 'GET pending still has the card');
    assert.equal(restored.pending.resumable, true, 'and it can still be answered');
    assert.equal(meetings.results.length, 0, 'the MCP server still waits');

    // The reloaded page picks the run in flight up from its first frame: the card comes with it.
    const picked = await fetch(`${host.url}/api/chat/stream?sessionId=${sessionId}`);
    assert.equal(picked.status, 200);
    const following = picked.text().then((text) => parseSse(text).frames);
    const ok = await host.post('/api/chat/continue', { sessionId, requestId: card.id, answers: answers('45'), cancelled: false });
    assert.equal(ok.status, 200);
    assert.deepEqual(
      parseSse(await ok.text()).frames.map((f) => f.event),
      ['interaction_resolved', 'done'],
      "the answer's stream confirms it; the run goes on in its own stream",
    );
    const frames = await following;
    assert.equal((frames.find((f) => f.event === 'user_input_required')!.data as any).id, card.id);
    const result = frames.find((f) => f.event === 'tool_result' && (f.data as any).toolCallId === 'call_reload')!.data as any;
    assert.match(result.content, /^Booked 45 minutes on 2026-12-10 with ana, bo;/);
    assert.equal(
      frames
        .filter((f) => f.event === 'message_delta')
        .map((f) => (f.data as any).text)
        .join(''),
      'booked after the reload',
    );
    assert.deepEqual(frames.at(-1)!.data, { reason: 'completed' });
    assert.ok(
      frames.every((f) => f.id),
      'every frame of the run has its id',
    );
    assert.deepEqual(meetings.results, [
      { action: 'accept', content: { date: '2026-12-10', duration: 45, attendees: ['ana', 'bo'], confirm: true } },
    ]);
  });
}

for (const runtime of ['loop', 'ai-sdk'] as const) {
  test(`the stop button while an MCP card is open (${runtime}): the card closes as cancelled, its server gets cancel, the run ends cancelled`, async (t) => {
    const world = await setup(t);
    const meetings = await world.meetings();
    const host = await world.host(meetings.url, { runtime });
    model.enqueue({ toolCalls: [{ id: 'call_stop', name: 'book_meeting', arguments: {} }] });
    const sessionId = `s-stop-${runtime}`;
    const calls = model.requests.length;
    const { card, rest } = await host.chatUntilCard(sessionId);
    const stopped = await host.post('/api/chat/stop', { sessionId });
    assert.deepEqual(await stopped.json(), { stopped: true });
    const frames = await rest;
    const resolved = frames.find((f) => f.event === 'interaction_resolved');
    assert.equal((resolved?.data as any)?.requestId, card.id);
    assert.equal((resolved?.data as any)?.status, 'cancelled');
    assert.deepEqual(frames.at(-1)!.data, { reason: 'cancelled' });
    assert.equal((await host.pending(sessionId)).pending, null);
    assert.equal(model.requests.length, calls + 1, 'no model call after the stop');
    await until(t, () => meetings.results.length > 0);
    assert.deepEqual(meetings.results, [{ action: 'cancel' }]);
  });
}

/** Waits until `ready()` holds, with no deadline of its own: the test's timeout is the bound, and ends the wait. */
async function until(t: TestContext, ready: () => boolean): Promise<void> {
  while (!ready() && !t.signal.aborted) await new Promise((r) => setTimeout(r, 20));
}

test(
  'a card answered after the timeouts of both sides (the call, the server elicitation) still reaches the server, and the run goes on',
  { timeout: 30_000 },
  async (t) => {
    const world = await setup(t);
    // The server gives up after 1 s without progress; the host's calls time out after 300 ms without a card.
    const meetings = await world.meetings(MEETING_SCHEMA, undefined, { elicitTimeoutMs: 1_000 });
    const host = await world.host(meetings.url, { keepAliveMs: 100, callTimeoutMs: 300 });
    model.enqueue({ toolCalls: [{ id: 'call_slow', name: 'book_meeting', arguments: {} }] }, { text: 'booked late' });
    const { card, rest } = await host.chatUntilCard('s-slow');
    // Answered well after both: the card's wait is the person's, not a hanging server's.
    await new Promise((r) => setTimeout(r, 2_500));
    assert.deepEqual(meetings.results, [], 'the server still waits');
    const ok = await host.post('/api/chat/continue', { sessionId: 's-slow', requestId: card.id, answers: answers('45'), cancelled: false });
    assert.equal(ok.status, 200, await ok.clone().text());
    await ok.text();
    const chat = await rest;
    const result = chat.find((f) => f.event === 'tool_result')!.data as any;
    assert.match(result.content, /^Booked 45 minutes on 2026-12-10/);
    assert.equal(result.isError, false);
    assert.deepEqual(chat.at(-1)!.data, { reason: 'completed' });
  },
);

for (const runtime of ['loop', 'ai-sdk'] as const) {
  test(`a new message while an MCP card is open (${runtime}) supersedes it: the server gets cancel, the old run stops, the message runs`, async (t) => {
    const world = await setup(t);
    const meetings = await world.meetings();
    const host = await world.host(meetings.url, { runtime });
    const sessionId = `s-new-${runtime}`;
    const asked = model.requests.length;
    model.enqueue({ toolCalls: [{ id: 'call_old', name: 'book_meeting', arguments: {} }] }, { text: 'about the new message' });
    const { card, rest } = await host.chatUntilCard(sessionId);
    assert.ok(card);

    const next = await host.post('/api/chat', { sessionId, message: 'never mind, something else' });
    assert.equal(next.status, 200);
    const frames = parseSse(await next.text()).frames;
    const events = frames.map((f) => f.event).filter((e, i, all) => e !== 'message_delta' || all[i - 1] !== 'message_delta');
    assert.deepEqual(events, ['interaction_resolved', 'message_delta', 'done'], JSON.stringify(frames));
    assert.deepEqual([(frames[0]!.data as any).requestId, (frames[0]!.data as any).status], [card.id, 'superseded']);
    assert.equal(
      frames
        .filter((f) => f.event === 'message_delta')
        .map((f) => (f.data as any).text)
        .join(''),
      'about the new message',
      'the new message got the next model reply',
    );
    assert.deepEqual(frames.at(-1)!.data, { reason: 'completed' });

    const old = await rest;
    assert.deepEqual(old.at(-1), { event: 'done', data: { reason: 'cancelled' } }, 'the old stream ended as cancelled');
    assert.ok(!old.some((f) => f.event === 'tool_result'), 'the old run wrote nothing after its card closed');
    await until(t, () => meetings.results.length > 0);
    assert.deepEqual(meetings.results, [{ action: 'cancel' }], 'the MCP server got cancel');
    assert.equal(model.requests.length - asked, 2, 'one model call for each message, none more from the old run');
    const last = JSON.stringify(model.requests.at(-1));
    assert.match(last, /never mind, something else/);

    const late = await host.post('/api/chat/continue', { sessionId, requestId: card.id, answers: answers('30'), cancelled: false });
    assert.equal(late.status, 409, 'the superseded card takes no answer');
    assert.equal(((await late.json()) as any).error.code, 'already_answered');
    assert.deepEqual(meetings.results, [{ action: 'cancel' }]);
  });
}

test('a blank optional field goes back as its schema default; the client declares applyDefaults', async (t) => {
  const world = await setup(t);
  const schema = {
    type: 'object',
    properties: {
      date: { type: 'string', format: 'date', title: 'Day' },
      room: { type: 'string', title: 'Room', default: 'Lotus' },
      minutes: { type: 'integer', title: 'Minutes', default: 30 },
      invite: { type: 'boolean', title: 'Invite?', default: true },
      note: { type: 'string', title: 'Note' },
    },
    required: ['date'],
  };
  const meetings = await world.meetings(schema);
  const host = await world.host(meetings.url);
  model.enqueue({ toolCalls: [{ id: 'call_def', name: 'book_meeting', arguments: {} }] }, { text: 'ok' });
  const { card, rest } = await host.chatUntilCard('s-defaults');
  const blank = (id: string) => ({ id, selections: [], customInput: '' });
  const ok = await host.post('/api/chat/continue', {
    sessionId: 's-defaults',
    requestId: card.id,
    answers: [{ id: 'date', selections: [], customInput: '2026-12-10' }, blank('room'), blank('minutes'), blank('invite'), blank('note')],
    cancelled: false,
  });
  assert.equal(ok.status, 200, await ok.clone().text());
  await ok.text();
  await rest;
  assert.deepEqual(meetings.results, [{ action: 'accept', content: { date: '2026-12-10', room: 'Lotus', minutes: 30, invite: true } }]);
});
