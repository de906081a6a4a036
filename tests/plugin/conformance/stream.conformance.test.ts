/**
 * Route conformance for contract §11 on every host framework adapter in HOSTS: `GET /api/chat/stream`
 * (replay after an id, live follow to `done`, 204, 410, 400, 403) and `POST /api/chat/stop` (its refusals,
 * and `stopped: false` for a host with nothing to stop). Frames are put in the kit's event log directly,
 * as a run would; what goes over the wire is checked byte for byte.
 */
import { describe, it, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import type { LogFrame } from '../../../plugin/store/event-log.js';
import { HOSTS } from './host.js';
import { assertError, assertRejectedAudit, INTRUDER, JSON_TYPE, open, RETRY_LINE, send, startFixture, type Fixture } from './support.js';

const frame = (runId: string, seq: number, event: string, data: unknown): LogFrame => ({ runId, seq, event, data: JSON.stringify(data) });
const wire = (f: LogFrame) => `id: ${f.runId}.${f.seq}\nevent: ${f.event}\ndata: ${f.data}\n\n`;

for (const hut of HOSTS) {
  describe(`${hut.name}: GET stream and POST stop (docs/protocol.md §11)`, () => {
    let f: Fixture;
    beforeEach(async () => {
      f = await startFixture(hut);
    });
    afterEach(async () => {
      await f.close();
    });

    const streamUrl = (query: string) => `${f.url}/api/chat/stream?${query}`;
    const log = () => f.store.log!;

    it('204 without a body when nothing was ever logged', async () => {
      const res = await send(streamUrl('sessionId=s-none'));
      assert.equal(res.status, 204);
      assert.equal(res.text, '');
    });

    it('replays every kept frame after Last-Event-ID (or lastEventId=), byte for byte, after retry: 1000, and ends at done', async () => {
      const frames = [
        frame('runA', 1, 'message_delta', { text: 'he' }),
        frame('runA', 2, 'message_delta', { text: 'llo' }),
        frame('runA', 3, 'done', { reason: 'completed' }),
      ];
      await log().append('s-replay', frames);
      const byHeader = await send(streamUrl('sessionId=s-replay'), { headers: { 'last-event-id': 'runA.1' } });
      assert.equal(byHeader.status, 200);
      assert.equal(byHeader.headers['content-type'], 'text/event-stream; charset=utf-8');
      assert.equal(byHeader.headers['cache-control'], 'no-cache, no-transform');
      assert.equal(byHeader.text, RETRY_LINE + wire(frames[1]!) + wire(frames[2]!));
      const byQuery = await send(streamUrl('sessionId=s-replay&lastEventId=runA.2'));
      assert.equal(byQuery.text, RETRY_LINE + wire(frames[2]!));
      // Nothing after the last frame, and the run is over: 204.
      assert.equal((await send(streamUrl('sessionId=s-replay'), { headers: { 'last-event-id': 'runA.3' } })).status, 204);
      // Without an id, a finished run is not replayed.
      assert.equal((await send(streamUrl('sessionId=s-replay'))).status, 204);
    });

    it('follows a run in flight live: frames appended after the request arrive on the open stream, which ends at done', async () => {
      const first = frame('runB', 1, 'message_delta', { text: 'one' });
      await log().append('s-live', [first]);
      const res = await open(streamUrl('sessionId=s-live'));
      assert.equal(res.statusCode, 200);
      res.setEncoding('utf8');
      let text = '';
      const ended = new Promise<void>((resolve) => res.on('end', resolve));
      const got = (what: string) =>
        new Promise<void>((resolve) => {
          const check = () => (text.includes(what) ? resolve() : undefined);
          res.on('data', (chunk: string) => {
            text += chunk;
            check();
          });
          check();
        });
      await got(wire(first));
      const later = [frame('runB', 2, 'message_delta', { text: 'two' }), frame('runB', 3, 'done', { reason: 'completed' })];
      await log().append('s-live', later);
      await ended;
      assert.equal(text, RETRY_LINE + wire(first) + later.map(wire).join(''));
    });

    it('410 replay_expired for a run the log does not keep; 400 for an id of another form or no session; 403 for a stranger', async () => {
      await log().append('s-refuse', [frame('runC', 1, 'done', { reason: 'completed' })]);
      assertError(await send(streamUrl('sessionId=s-refuse'), { headers: { 'last-event-id': 'gone.4' } }), {
        status: 410,
        code: 'replay_expired',
      });
      assertError(await send(streamUrl('sessionId=s-refuse'), { headers: { 'last-event-id': 'runC-1' } }), {
        status: 400,
        code: 'invalid_request',
        field: 'lastEventId',
      });
      assertError(await send(`${f.url}/api/chat/stream`), { status: 400, code: 'invalid_request', field: 'sessionId' });
      const stranger = await send(streamUrl('sessionId=s-refuse'), { headers: { ...INTRUDER, 'last-event-id': 'runC.1' } });
      assertError(stranger, { status: 403, code: 'forbidden' });
      assertRejectedAudit(f, 'forbidden');
      assert.equal((await send(streamUrl('sessionId=s-refuse'), { method: 'POST' })).status, 405);
    });

    it('POST stop: 200 { stopped: false } with nothing to stop; 400 for a bad body; 403 for a stranger or another site', async () => {
      const stop = (body: unknown, headers: Record<string, string> = {}) =>
        send(`${f.url}/api/chat/stop`, { method: 'POST', headers: { ...JSON_TYPE, ...headers }, body: JSON.stringify(body) });
      const ok = await stop({ sessionId: 's-stop' });
      assert.equal(ok.status, 200);
      assert.deepEqual(ok.json(), { stopped: false });
      assertError(await stop({}), { status: 400, code: 'invalid_request', field: 'sessionId' });
      assertError(await stop({ sessionId: 's-stop', extra: 1 }), { status: 400, code: 'invalid_request' });
      assertError(await stop({ sessionId: 's-stop' }, INTRUDER), { status: 403, code: 'forbidden' });
      assertError(await stop({ sessionId: 's-stop' }, { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' }), {
        status: 403,
        code: 'forbidden',
      });
      assert.equal((await send(`${f.url}/api/chat/stop`)).status, 405);
    });
  });
}
