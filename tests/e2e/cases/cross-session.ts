/** docs/protocol.md, Acceptance row 5: cross-session submission — refused 403 session_mismatch; the owning session is untouched and still answerable. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCase } from '../helpers/acceptance-case.js';
import { option, receipt } from '../helpers/demo-page.js';
import { answerContent, assertToolResultSent } from '../helpers/model-evidence.js';
import { APPROACH, ask, echo } from '../helpers/turns.js';
import { auditOf, chatStream, continueStreams } from '../helpers/streams.js';

test('cross-session submission: another session answering gets 403 session_mismatch; the owner still answers once', () =>
  runCase('cross-session', { turns: [ask('call_e2e_owner', APPROACH), { text: '另一个会话的回复。' }, echo()] }, async (c) => {
    const owner = await c.openPage();
    await owner.chat.open();
    await owner.chat.send('帮我整理一下这个仓库');
    const card = await owner.chat.openCard();
    const asked = (await chatStream(owner.tap)).events.find((e) => e.event === 'user_input_required');
    assert.ok(asked, 'no user_input_required in the raw chat SSE');

    // Another browser, another session: it learns the requestId and answers it as its own.
    const intruder = await c.openPage();
    await intruder.chat.open();
    await intruder.chat.send('你好');
    const other = await chatStream(intruder.tap);
    const otherSession = JSON.parse(other.exchange.requestBody!).sessionId as string;
    assert.notEqual(otherSession, asked.data.sessionId, 'the two contexts share a session; the case proves nothing');
    const attempt = await intruder.chat.page.evaluate(
      async (body) => {
        const res = await fetch('/api/chat/continue', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        return { status: res.status, body: await res.text() };
      },
      { sessionId: otherSession, requestId: asked.data.id, selections: ['implement'], customInput: '', cancelled: false },
    );
    c.note('crossSessionAttempt', attempt);
    assert.equal(attempt.status, 403, `cross-session submission was not refused: ${attempt.status} ${attempt.body}`);
    assert.equal(JSON.parse(attempt.body).error.code, 'session_mismatch');
    assert.equal(c.model.requests.length, 2, 'the refused submission reached the model');

    const pending = await (await fetch(`${c.server.url}/api/interactions/pending?sessionId=${asked.data.sessionId}`)).json();
    assert.equal(pending.pending?.id, asked.data.id, 'the owner’s interaction is no longer pending');
    assert.equal(pending.pending.status, 'pending');
    assert.equal(await card.locator('[part~="form"]').count(), 1, 'the owner’s card closed');

    await option(card, '先分析').check();
    await card.locator('[part~="submit-button"]').click();
    await receipt(card).waitFor();
    await owner.chat.waitForAssistant('模型收到');
    const [cont] = await continueStreams(owner.tap, 1);
    assert.equal(cont!.exchange.status, 200);
    assert.equal(c.model.requests.length, 3);
    const sent = assertToolResultSent(c.model, 2, 'call_e2e_owner', answerContent(['safe'], ''));
    assert.ok(
      !sent.messages.some((m) => m.role === 'user' && m.content === '你好'),
      'the other session’s message leaked into the owner’s history',
    );
    const events = auditOf(c.server, asked.data.id).map((a) => `${a.event}${a.reason ? `:${a.reason}` : ''}`);
    assert.deepEqual(events, ['asked', 'rejected:session_mismatch', 'answered']);
  }));
