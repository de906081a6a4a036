/** The relay a run's stream becomes under `mcpElicitation().around`: when the page leaving stops the run, and where its words go. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SseSink } from '../../../plugin/core/host.js';
import { RelaySink } from '../../../plugin/mcp/relay-sink.js';

/** A stream that records what it is sent; `leave()` is the client going away. */
function stream() {
  const left = new AbortController();
  const sent: string[] = [];
  const sink: SseSink & { sent: string[]; leave(): void } = {
    sent,
    send: (event, data) => void sent.push(`${event} ${JSON.stringify(data)}`),
    comment: (text) => void sent.push(`: ${text}`),
    end: () => left.abort(),
    leave: () => left.abort(),
    get signal() {
      return left.signal;
    },
    get closed() {
      return left.signal.aborted;
    },
  };
  return sink;
}

test('without a card holding it, the page leaving stops the run at once', () => {
  const page = stream();
  const relay = new RelaySink(page);
  relay.send('message_delta', { text: 'hi' });
  page.leave();
  assert.equal(relay.signal.aborted, true);
  assert.equal(relay.closed, true);
  assert.deepEqual(page.sent, ['message_delta {"text":"hi"}']);
});

test('a held run outlives the page; letting go of it afterwards stops it', () => {
  const page = stream();
  const relay = new RelaySink(page);
  const letGo = relay.hold();
  page.leave();
  assert.equal(relay.signal.aborted, false, 'held: the run goes on');
  assert.equal(relay.orphaned, true);
  relay.send('message_delta', { text: 'lost' });
  letGo();
  letGo();
  assert.equal(relay.signal.aborted, true, 'let go with nobody listening: the run stops');
});

test('handed over, the run speaks on the new stream until it is done', async () => {
  const page = stream();
  const answer = stream();
  const relay = new RelaySink(page);
  const letGo = relay.hold();
  page.leave();
  const over = relay.handOver(answer);
  letGo();
  assert.equal(relay.signal.aborted, false, 'the new stream listens');
  relay.send('done', { reason: 'completed' });
  let finished = false;
  void over.then(() => (finished = true));
  await Promise.resolve();
  assert.equal(finished, false, 'not before the run is over');
  relay.done();
  await over;
  assert.deepEqual(answer.sent, ['done {"reason":"completed"}']);
  assert.deepEqual(page.sent, []);
});

test('a handed-over stream that closes ends the wait, and stops the run', async () => {
  const page = stream();
  const answer = stream();
  const relay = new RelaySink(page);
  const letGo = relay.hold();
  page.leave();
  const over = relay.handOver(answer);
  letGo();
  assert.equal(relay.signal.aborted, false);
  answer.leave();
  await over;
  assert.equal(relay.signal.aborted, true);
});

test('ending a held relay stops its run all the same (a new message stops it); `over` resolves when the run returns', async () => {
  const page = stream();
  const relay = new RelaySink(page);
  relay.hold();
  relay.end();
  assert.equal(relay.signal.aborted, true, 'a hold keeps a run from a page leaving, not from being stopped');
  assert.equal(page.closed, true);
  let over = false;
  const watched = relay.over.then(() => void (over = true));
  await Promise.resolve();
  assert.equal(over, false);
  relay.done();
  await watched;
  assert.equal(over, true);
});
