/** docs/protocol.md, Acceptance row 6: page refresh — GET pending restores the card; submitting continues the run. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCase } from '../helpers/acceptance-case.js';
import { option, receipt } from '../helpers/demo-page.js';
import { answerContent, assertHistoryExtends, assertToolResultSent } from '../helpers/model-evidence.js';
import { APPROACH, ask, echo } from '../helpers/turns.js';
import { chatStream, continueStreams } from '../helpers/streams.js';

test('page refresh: the pending query restores the card, and its answer continues the paused run', () =>
  runCase('page-refresh', { turns: [ask('call_e2e_refresh', APPROACH), echo()] }, async (c) => {
    const { chat, tap } = await c.openPage();
    await chat.open();
    await chat.send('帮我整理一下这个仓库');
    await chat.openCard();
    const asked = (await chatStream(tap)).events.find((e) => e.event === 'user_input_required');
    assert.ok(asked, 'no user_input_required in the raw chat SSE');

    const pendingBefore = tap.on('/api/interactions/pending').length;
    await chat.reload();
    const card = await chat.openCard();
    await c.evidence.screenshot(chat.page, 'restored');
    const restored = await tap.waitFor(
      '/api/interactions/pending',
      () => tap.on('/api/interactions/pending').filter((x) => x.end).length > pendingBefore,
    );
    const last = tap.on('/api/interactions/pending').at(-1)!;
    assert.ok(restored);
    assert.ok(
      last.path.includes(encodeURIComponent(asked.data.sessionId)) || last.path.includes(asked.data.sessionId),
      'the reloaded page asked for another session',
    );
    const body = JSON.parse(tap.body(last).toString('utf8'));
    c.note('pendingAfterReload', body);
    assert.equal(body.pending?.id, asked.data.id, 'GET pending did not return the open interaction');
    assert.equal(body.pending.toolCallId, 'call_e2e_refresh');
    assert.equal(body.pending.status, 'pending');
    assert.equal(body.pending.resumable, true);
    assert.equal(await card.locator('[part~="title"]').innerText(), APPROACH.title);

    await option(card, '直接实现').check();
    await card.locator('[part~="submit-button"]').click();
    await receipt(card).waitFor();
    await chat.waitForAssistant('模型收到');
    const [cont] = await continueStreams(tap, 1);
    assert.equal(cont!.exchange.status, 200);
    assert.equal(c.model.requests.length, 2);
    const sent = assertToolResultSent(c.model, 1, 'call_e2e_refresh', answerContent(['implement'], ''));
    assertHistoryExtends(c.model.requests[0]!, sent, 'resume after refresh');

    // A second reload after the answer: no open card comes back, and the question is redrawn as answered.
    await chat.reload();
    assert.equal(await chat.page.locator('ask-user-card [part~="form"]').count(), 0, 'an answered question came back as an open card');
    const historic = chat.page.locator('[data-testid="historic-receipt"]');
    await historic.first().waitFor();
    assert.match(
      await historic.first().locator('[part~="receipt"]').innerText(),
      /请选择执行方式[\s\S]*直接实现/,
      'the redrawn history does not show the answered question with its choice',
    );
    assert.equal(
      (await historic.first().locator('.receipt-status').innerText()).trim(),
      '已提交',
      'the redrawn receipt words the answer differently from the live card (已提交)',
    );
    await c.evidence.screenshot(chat.page, 'after-second-reload');
    assert.equal(tap.on('/api/chat/continue').length, 1, 'reloading sent another answer');
  }));
