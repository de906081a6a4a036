/**
 * Contract §13 through the demo (`ASK_USER_WEBHOOK_URL`, `ASK_USER_WEBHOOK_SECRET`, a short
 * `ASK_USER_NOTIFY_AFTER_MS`): a card left open is delivered to the receiver exactly once, signed as the
 * Standard Webhooks specification says, with §13's payload (its answer link among it, which no log holds);
 * a card answered in time is never delivered.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCase } from '../helpers/acceptance-case.js';
import { option, receipt, SEL } from '../helpers/demo-page.js';
import { chatStream, waitForAudit } from '../helpers/streams.js';
import { ANSWER_LINK, logsOf, NOTIFY_AFTER_MS, notifyDemo, tokenOf } from '../helpers/notify-demo.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('notifications — webhook: a card left open is delivered exactly once after ASK_USER_NOTIFY_AFTER_MS, signed, with §13’s payload; its link is in no log', async () => {
  const { shared, webhook } = await notifyDemo();
  const firstLine = shared.server.output.length;
  await runCase('notify-webhook-left-open', { shared }, async (c) => {
    const { chat, tap } = await c.openPage();
    await chat.open();
    await chat.send('你好，帮我看看这个仓库');
    const card = await chat.openCard();
    const asked = (await chatStream(tap)).events.find((e) => e.event === 'user_input_required')!.data;
    const askedAt = Date.parse(String((await waitForAudit(c.server, asked.id, 'asked')).at));

    const [delivery] = await webhook.waitFor(asked.id);
    c.note('delivery', delivery);
    assert.ok(delivery!.at - askedAt >= NOTIFY_AFTER_MS - 50, `delivered ${delivery!.at - askedAt} ms after the card was asked`);
    assert.equal(delivery!.headers['content-type'], 'application/json');
    assert.equal(delivery!.headers['webhook-id'], asked.id, 'webhook-id is the requestId');
    const payload = webhook.verify(delivery!);
    assert.equal(payload.type, 'ask_user.waiting');
    assert.ok(!Number.isNaN(Date.parse(payload.timestamp)));
    const { answerUrl, ...data } = payload.data as { answerUrl: string } & Record<string, unknown>;
    assert.deepEqual(data, {
      sessionId: asked.sessionId,
      requestId: asked.id,
      kind: 'question',
      title: asked.title,
      expiresAt: asked.expiresAt,
    });
    assert.match(answerUrl, ANSWER_LINK, 'the answer link, on the demo’s own origin (ASK_USER_PUBLIC_URL unset)');
    assert.ok(answerUrl.startsWith(`${c.server.url}/answer/`));

    // Longer than the first wait again: still the one delivery.
    await sleep(NOTIFY_AFTER_MS + 1000);
    assert.equal(webhook.of(asked.id).length, 1, 'a second delivery for the same card');

    await option(card, '直接实现').check();
    await card.locator('[part~="submit-button"]').click();
    await receipt(card).waitFor();
    await chat.page.locator(SEL.runStatus, { hasText: 'completed' }).waitFor();
    assert.equal(webhook.of(asked.id).length, 1, 'answering it brought another delivery');
    const logs = await logsOf(shared, firstLine, [asked.sessionId]);
    assert.ok(!logs.includes(tokenOf(answerUrl)), 'the answer link’s token is in the demo’s output or trace');
    c.note('deliveriesOfCard', webhook.of(asked.id).length);
  });
});

test('notifications — webhook: a card answered before ASK_USER_NOTIFY_AFTER_MS is never delivered', async () => {
  const { shared, webhook } = await notifyDemo();
  await runCase('notify-webhook-in-time', { shared }, async (c) => {
    const { chat, tap } = await c.openPage();
    await chat.open();
    await chat.send('你好，帮我整理一下代码');
    const card = await chat.openCard();
    await option(card, '先分析').check();
    await card.locator('[part~="submit-button"]').click();
    await receipt(card).waitFor();
    const asked = (await chatStream(tap)).events.find((e) => e.event === 'user_input_required')!.data;
    const askedAt = Date.parse(String((await waitForAudit(c.server, asked.id, 'asked')).at));
    const answeredAt = Date.parse(String((await waitForAudit(c.server, asked.id, 'answered')).at));
    c.note('answeredAfterMs', answeredAt - askedAt);
    assert.ok(answeredAt - askedAt < NOTIFY_AFTER_MS, `inconclusive: the card was answered ${answeredAt - askedAt} ms after it was asked`);

    // Past the card's notify time, with a margin for a delivery in flight.
    await sleep(Math.max(0, askedAt + NOTIFY_AFTER_MS + 2000 - Date.now()));
    assert.deepEqual(webhook.of(asked.id), [], 'a card answered in time was delivered');
    await chat.page.locator(SEL.runStatus, { hasText: 'completed' }).waitFor();
  });
});
