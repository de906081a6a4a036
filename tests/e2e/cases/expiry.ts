/** Expiry (docs/protocol.md §6): past ASK_USER_TTL_MS the card shows the timeout receipt, the server closes and audits it, and the model later gets the expired ToolResult. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCase } from '../helpers/acceptance-case.js';
import { receipt } from '../helpers/demo-page.js';
import { assertToolResultSent, closedContent } from '../helpers/model-evidence.js';
import { APPROACH, ask } from '../helpers/turns.js';
import { chatStream, waitForAudit } from '../helpers/streams.js';

const TTL_MS = 6_000;

test('expiry: a short ASK_USER_TTL_MS turns the card into the timeout receipt, survives a reload as expired, refuses a late answer 410, and gives the model the expired ToolResult', () =>
  runCase('expiry', { turns: [ask('call_e2e_expiry', APPROACH), { text: '新的请求已处理。' }], ttlMs: TTL_MS }, async (c) => {
    const { chat, tap } = await c.openPage();
    await chat.open();
    await chat.send('帮我整理一下这个仓库');
    const card = await chat.openCard();
    const asked = (await chatStream(tap)).events.find((e) => e.event === 'user_input_required');
    assert.ok(asked, 'no user_input_required in the raw chat SSE');
    const ttl = Date.parse(asked.data.expiresAt) - Date.now();
    assert.ok(ttl > 0 && ttl <= TTL_MS, `expiresAt ${asked.data.expiresAt} does not follow ASK_USER_TTL_MS=${TTL_MS}`);
    assert.match(await card.locator('[part~="expiry"]').innerText(), /剩余时间 0:0\d/, 'the card shows no countdown');

    await receipt(card).waitFor({ timeout: TTL_MS + 10_000 });
    await c.evidence.screenshot(chat.page, 'expired-in-place');
    assert.match(await receipt(card).innerText(), /已超时[\s\S]*回答时间已过，任务未继续/);
    const expired = await waitForAudit(c.server, asked.data.id, 'expired');
    c.note('expiredAudit', expired);

    await chat.reload();
    await receipt(chat.card()).waitFor();
    const pending = JSON.parse(tap.body(tap.on('/api/interactions/pending').at(-1)!).toString('utf8'));
    c.note('pendingAfterExpiry', pending);
    assert.equal(pending.pending?.id, asked.data.id, 'the expired interaction is not returned within the retention window');
    assert.equal(pending.pending.status, 'expired');
    assert.match(await receipt(chat.card()).innerText(), /已超时/);
    await c.evidence.screenshot(chat.page, 'expired-after-reload');
    assert.equal(tap.on('/api/chat/continue').length, 0, 'the expired card sent an answer');

    const late = await fetch(`${c.server.url}/api/chat/continue`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        sessionId: asked.data.sessionId,
        requestId: asked.data.id,
        selections: ['safe'],
        customInput: '',
        cancelled: false,
      }),
    });
    const lateBody = await late.text();
    c.note('lateAnswer', { status: late.status, body: lateBody });
    assert.equal(late.status, 410, `a late answer was not refused as expired: ${late.status} ${lateBody}`);
    assert.equal(JSON.parse(lateBody).error.code, 'expired');
    assert.equal(c.model.requests.length, 1, 'the model was called after the expiry');

    await chat.send('那先写发布说明吧');
    await chatStream(tap, 2);
    const next = assertToolResultSent(c.model, 1, 'call_e2e_expiry', closedContent('expired'));
    const at = (role: string, pred: (m: Record<string, unknown>) => boolean) => next.messages.findIndex((m) => m.role === role && pred(m));
    assert.ok(
      at('tool', (m) => m.tool_call_id === 'call_e2e_expiry') < at('user', (m) => m.content === '那先写发布说明吧'),
      'the expired ToolResult is not before the new message',
    );
  }));
