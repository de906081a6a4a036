/**
 * Route conformance: docs/protocol.md §4 (continue) and §5 (pending), row by row, stated once for every
 * host framework adapter in HOSTS. Real HTTP over loopback; the clock is moved, never waited on; the store
 * is broken on purpose for the 503 rows. An adapter conforms when this file passes unchanged.
 */
import { describe, it, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { StoreUnavailableError } from '../../../plugin/index.js';
import { HOSTS } from './host.js';
import {
  answer,
  assertError,
  assertNoCanary,
  assertRejectedAudit,
  BODY_LIMIT,
  bodyOfSize,
  CANARY,
  frameText,
  RETRY_LINE,
  INTRUDER,
  iso,
  JSON_TYPE,
  open,
  parseSse,
  RETENTION_MS,
  send,
  SINGLE,
  startFixture,
  T0,
  TTL_MS,
  type Fixture,
  type HttpResponse,
} from './support.js';

const SSE_CONTENT_TYPE = 'text/event-stream; charset=utf-8';

/** A 200 continue response carries the §3 stream headers exactly, uncompressed and unsized. */
function assertSseHeaders(res: { status: number; headers: HttpResponse['headers'] }): void {
  assert.equal(res.status, 200);
  assert.equal(res.headers['content-type'], SSE_CONTENT_TYPE);
  assert.equal(res.headers['cache-control'], 'no-cache, no-transform');
  assert.equal(res.headers['x-accel-buffering'], 'no');
  assert.equal(res.headers['connection'], 'keep-alive');
  assert.equal(res.headers['content-encoding'], undefined, 'never compressed');
  assert.equal(res.headers['content-length'], undefined, 'a stream has no length');
}

/** Accepted: 200 SSE; consume it and return its frames. */
function accepted(res: HttpResponse, label = '') {
  assert.equal(res.status, 200, `${label} ${res.text.slice(0, 300)}`);
  assertSseHeaders(res);
  return parseSse(res.text);
}

const MODE_CASES: Array<{
  mode: string;
  args: Record<string, unknown>;
  bad: Array<[over: Record<string, unknown>, field: 'selections' | 'customInput']>;
  good: Record<string, unknown>;
}> = [
  {
    mode: 'single',
    args: SINGLE,
    bad: [
      [{ selections: [] }, 'selections'],
      [{ selections: ['safe', 'implement'] }, 'selections'],
      [{ selections: [CANARY] }, 'selections'],
      [{ selections: ['safe'], customInput: `${CANARY} typed without allowCustom` }, 'customInput'],
    ],
    good: { selections: ['implement'] },
  },
  {
    mode: 'single with allowCustom',
    args: { ...SINGLE, allowCustom: true },
    bad: [
      [{ selections: [], customInput: '   ' }, 'selections'],
      [{ selections: ['safe', CANARY], customInput: CANARY }, 'selections'],
    ],
    good: { selections: [], customInput: `${CANARY} typed instead of a choice` },
  },
  {
    mode: 'multiple',
    args: {
      title: 'Which?',
      mode: 'multiple',
      options: [
        { id: 'a', label: 'A' },
        { id: 'b', label: 'B' },
      ],
    },
    bad: [
      [{ selections: ['a', 'a'] }, 'selections'],
      [{ selections: ['a', CANARY] }, 'selections'],
      [{ selections: ['a'], customInput: CANARY }, 'customInput'],
    ],
    good: { selections: [] },
  },
  {
    mode: 'toggle',
    args: {
      title: 'Enable?',
      mode: 'toggle',
      options: [
        { id: 'on', label: 'On' },
        { id: 'log', label: 'Logging' },
      ],
    },
    bad: [
      [{ selections: [] }, 'selections'],
      [{ selections: ['on', 'on'] }, 'selections'],
    ],
    good: { selections: ['log', 'on'] },
  },
  {
    mode: 'text',
    args: { title: 'Name?', mode: 'text', options: [{ id: 'x', label: 'X' }] },
    bad: [
      [{ selections: [], customInput: ' \n\t ' }, 'customInput'],
      // The stored form has no options (text mode drops them): a selection is refused whatever the client claims.
      [{ selections: ['x'], customInput: CANARY }, 'selections'],
    ],
    good: { selections: [], customInput: `${CANARY} Ada` },
  },
  {
    mode: 'number',
    args: { title: 'How many?', mode: 'number' },
    bad: [
      [{ selections: [], customInput: '0x10' }, 'customInput'],
      [{ selections: [], customInput: 'NaN' }, 'customInput'],
      [{ selections: [], customInput: '1e309' }, 'customInput'],
      [{ selections: [], customInput: `42 ${CANARY}` }, 'customInput'],
      [{ selections: ['1'], customInput: '1' }, 'selections'],
    ],
    good: { selections: [], customInput: '-3.5' },
  },
  {
    mode: 'date',
    args: { title: 'When?', mode: 'date' },
    bad: [
      [{ selections: [], customInput: '2023-02-29' }, 'customInput'],
      [{ selections: [], customInput: '0000-01-01' }, 'customInput'],
      [{ selections: [], customInput: `2024-01-01${CANARY}` }, 'customInput'],
    ],
    good: { selections: [], customInput: '2024-02-29' },
  },
  {
    mode: 'directory',
    args: { title: 'Where?', mode: 'directory' },
    bad: [
      [{ selections: [], customInput: `/etc/${CANARY}` }, 'customInput'],
      [{ selections: [], customInput: `src/../../${CANARY}` }, 'customInput'],
      [{ selections: [], customInput: '~/x' }, 'customInput'],
      [{ selections: [], customInput: 'C:\\x' }, 'customInput'],
      [{ selections: [], customInput: '\\\\server\\share' }, 'customInput'],
      [{ selections: [], customInput: 'a\u0000b' }, 'customInput'],
    ],
    good: { selections: [], customInput: 'packages/app' },
  },
  // The stored bounds of docs/protocol.md §9.1: the same 422 naming the field.
  {
    mode: 'number with min, max, step (§9.1)',
    args: { title: 'How many?', mode: 'number', min: 0, max: 5, step: 0.5, default: '2.5', placeholder: '0–5' },
    bad: [
      [{ selections: [], customInput: '7' }, 'customInput'],
      [{ selections: [], customInput: '-0.5' }, 'customInput'],
      [{ selections: [], customInput: '5.0000000000000001' }, 'customInput'],
      [{ selections: [], customInput: '0.25' }, 'customInput'],
    ],
    good: { selections: [], customInput: '5' },
  },
  {
    mode: 'number with step 0.1 (§9.1, decimal, not binary)',
    args: { title: 'Ratio?', mode: 'number', step: 0.1 },
    bad: [[{ selections: [], customInput: '0.35' }, 'customInput']],
    good: { selections: [], customInput: '0.3' },
  },
  {
    mode: 'date with min, max (§9.1)',
    args: { title: 'When?', mode: 'date', min: '2026-12-01', max: '2026-12-31' },
    bad: [
      [{ selections: [], customInput: '2026-11-30' }, 'customInput'],
      [{ selections: [], customInput: '2027-01-01' }, 'customInput'],
    ],
    good: { selections: [], customInput: '2026-12-31' },
  },
  {
    mode: 'text with minLength, maxLength in code points (§9.1)',
    args: { title: 'Initials?', mode: 'text', minLength: 2, maxLength: 3 },
    bad: [
      [{ selections: [], customInput: '😀' }, 'customInput'],
      [{ selections: [], customInput: 'abcd' }, 'customInput'],
    ],
    good: { selections: [], customInput: '😀😀😀' },
  },
  {
    mode: 'directory with maxLength (§9.1)',
    args: { title: 'Where?', mode: 'directory', maxLength: 5 },
    bad: [[{ selections: [], customInput: 'src/app' }, 'customInput']],
    good: { selections: [], customInput: 'src' },
  },
  {
    mode: 'multiple with minSelections, maxSelections (§9.1)',
    args: {
      title: 'Which?',
      mode: 'multiple',
      options: [
        { id: 'a', label: 'A' },
        { id: 'b', label: 'B' },
        { id: 'c', label: 'C' },
      ],
      minSelections: 1,
      maxSelections: 2,
      default: ['a'],
    },
    bad: [
      [{ selections: [] }, 'selections'],
      [{ selections: ['a', 'b', 'c'] }, 'selections'],
    ],
    good: { selections: ['c', 'a'] },
  },
  {
    mode: 'toggle with minSelections 2 (§9.1)',
    args: {
      title: 'Enable?',
      mode: 'toggle',
      options: [
        { id: 'on', label: 'On' },
        { id: 'log', label: 'Logging' },
      ],
      minSelections: 2,
    },
    bad: [[{ selections: ['on'] }, 'selections']],
    good: { selections: ['on', 'log'] },
  },
  {
    mode: 'single whose Other box has minLength, maxLength (§9.1)',
    args: { ...SINGLE, allowCustom: true, placeholder: 'Other…', minLength: 3, maxLength: 8 },
    bad: [
      [{ selections: [], customInput: `${CANARY}` }, 'customInput'],
      [{ selections: ['safe'], customInput: 'ab' }, 'customInput'],
    ],
    good: { selections: ['safe'], customInput: '' },
  },
];

for (const hut of HOSTS) {
  describe(`${hut.name}: POST continue (docs/protocol.md §4)`, () => {
    let f: Fixture;
    beforeEach(async () => {
      f = await startFixture(hut);
    });
    afterEach(async () => {
      try {
        assertNoCanary(f);
      } finally {
        await f.close();
      }
    });

    // ------------------------------------------------------------------------------------- accepted

    it('accepted: 200 with the §3 stream headers, interaction_resolved, the host frames in order, done last; exactly those bytes', async () => {
      const rec = await f.ask('s1', SINGLE, 'call_A');
      f.clock.now = T0 + 1234;
      const customInput = '';
      const res = await f.post(answer('s1', rec.requestId, { selections: ['implement'], customInput }), {
        headers: { ...JSON_TYPE, 'accept-encoding': 'gzip, deflate, br' },
      });
      assertSseHeaders(res);
      const expected =
        RETRY_LINE +
        frameText('interaction_resolved', {
          requestId: rec.requestId,
          toolCallId: 'call_A',
          status: 'answered',
          at: iso(T0 + 1234),
          selections: ['implement'],
          customInputLength: 0,
        }) +
        frameText('tool_result', {
          toolCallId: 'call_A',
          name: 'ask_user',
          content: '{"selections":["implement"],"customInput":"","cancelled":false}',
          isError: false,
        }) +
        frameText('message_delta', { text: 'continuing' }) +
        frameText('done', { reason: 'completed' });
      assert.equal(res.text, expected);
      assert.equal(f.host.resumed.length, 1);
      assert.deepEqual(f.host.resumed[0]!.answer, { selections: ['implement'], customInput: '', cancelled: false });
      assert.equal(await f.statusOf(rec.requestId), 'answered');
      const entry = f.audit.entries.at(-1)!;
      assert.deepEqual(
        {
          event: entry.event,
          requestId: entry.requestId,
          toolCallId: entry.toolCallId,
          selections: entry.selections,
          customInputLength: entry.customInputLength,
        },
        { event: 'answered', requestId: rec.requestId, toolCallId: 'call_A', selections: ['implement'], customInputLength: 0 },
      );
    });

    it('accepted: selections and customInput reach the run exactly as sent; the stream and audit carry only the length', async () => {
      const rec = await f.ask(
        's1',
        {
          title: 'Which?',
          mode: 'multiple',
          allowCustom: true,
          options: [
            { id: 'a', label: 'A' },
            { id: 'b', label: 'B' },
          ],
        },
        'call_M',
      );
      const customInput = `  ${CANARY} "quoted"\nnext line `;
      const frames = accepted(await f.post(answer('s1', rec.requestId, { selections: ['b', 'a'], customInput })));
      assert.deepEqual(
        frames.map((x) => x.event),
        ['interaction_resolved', 'tool_result', 'message_delta', 'done'],
      );
      assert.deepEqual(frames[0]!.data, {
        requestId: rec.requestId,
        toolCallId: 'call_M',
        status: 'answered',
        at: iso(T0),
        selections: ['b', 'a'],
        customInputLength: customInput.length,
      });
      assert.equal(
        (frames[1]!.data as { content: string }).content,
        JSON.stringify({ selections: ['b', 'a'], customInput, cancelled: false }),
      );
      assert.equal(f.host.resumed[0]!.answer.customInput, customInput);
    });

    it('a cancel of a question with a default (§9.1) is the plain cancel ToolResult: a default is never an answer', async () => {
      const rec = await f.ask(
        's1',
        {
          title: 'Which?',
          mode: 'multiple',
          options: [
            { id: 'a', label: 'A' },
            { id: 'b', label: 'B' },
          ],
          default: ['a'],
          minSelections: 1,
        },
        'call_D',
      );
      const frames = accepted(await f.post(answer('s1', rec.requestId, { cancelled: true })));
      assert.deepEqual(frames[0]!.data, {
        requestId: rec.requestId,
        toolCallId: 'call_D',
        status: 'cancelled',
        at: iso(T0),
        selections: [],
        customInputLength: 0,
      });
      assert.equal((frames[1]!.data as { content: string }).content, '{"selections":[],"customInput":"","cancelled":true}');
    });

    it('accepted cancel: cancelled resolution, the cancel ToolResult, done cancelled; selections and customInput ignored even past their limits', async () => {
      const rec = await f.ask('s1', SINGLE, 'call_C');
      const res = await f.post(
        answer('s1', rec.requestId, {
          cancelled: true,
          selections: [CANARY, 'x'.repeat(200), ...Array.from({ length: 60 }, (_, i) => `o${i}`)],
          customInput: CANARY.repeat(700),
        }),
      );
      assertSseHeaders(res);
      assert.equal(
        res.text,
        RETRY_LINE +
          frameText('interaction_resolved', {
            requestId: rec.requestId,
            toolCallId: 'call_C',
            status: 'cancelled',
            at: iso(T0),
            selections: [],
            customInputLength: 0,
          }) +
          frameText('tool_result', {
            toolCallId: 'call_C',
            name: 'ask_user',
            content: '{"selections":[],"customInput":"","cancelled":true}',
            isError: false,
          }) +
          frameText('done', { reason: 'cancelled' }),
      );
      assert.equal(await f.statusOf(rec.requestId), 'cancelled');
      assert.equal(f.audit.entries.at(-1)!.event, 'cancelled');
    });

    it(
      'accepted: each frame reaches the client when written, before the run finishes (nothing buffers the stream)',
      { timeout: 10_000 },
      async () => {
        const rec = await f.ask('s1');
        let release!: () => void;
        f.host.gate = new Promise<void>((resolve) => (release = resolve));
        const res = await open(f.continueUrl, {
          method: 'POST',
          headers: { ...JSON_TYPE, 'accept-encoding': 'gzip, br' },
          body: JSON.stringify(answer('s1', rec.requestId)),
        });
        assertSseHeaders({ status: res.statusCode ?? 0, headers: res.headers });
        res.setEncoding('utf8');
        let text = '';
        const ended = new Promise<void>((resolve, reject) => {
          res.on('end', resolve);
          res.on('error', reject);
        });
        // The run is held at the gate: interaction_resolved must arrive on its own.
        await new Promise<void>((resolve) => {
          res.on('data', (chunk: string) => {
            text += chunk;
            if (text.endsWith('\n\n')) resolve();
          });
        });
        assert.match(text, /^retry: 1000\n\nevent: interaction_resolved\ndata: .+\n\n$/);
        assert.equal(f.host.resumed.length, 1);
        release();
        await ended;
        assert.deepEqual(
          parseSse(text).map((x) => x.event),
          ['interaction_resolved', 'tool_result', 'message_delta', 'done'],
        );
      },
    );

    it('accepted, then the run fails: the answer stays recorded and the stream ends in error then done error, in fixed words', async () => {
      const rec = await f.ask('s1', SINGLE, 'call_F');
      f.host.resumeError = new Error(`model exploded: ${CANARY}`);
      let res = await f.post(answer('s1', rec.requestId));
      assertSseHeaders(res);
      const message = (parseSse(res.text)[1]!.data as { message: string }).message;
      assert.equal(
        res.text,
        RETRY_LINE +
          frameText('interaction_resolved', {
            requestId: rec.requestId,
            toolCallId: 'call_F',
            status: 'answered',
            at: iso(T0),
            selections: ['safe'],
            customInputLength: 0,
          }) +
          frameText('error', { code: 'internal_error', message }) +
          frameText('done', { reason: 'error' }),
      );
      assert.ok(!res.text.includes(CANARY), 'the upstream error text never reaches the client');
      assert.deepEqual(f.errors, [f.host.resumeError], 'the cause goes to onError');
      assert.equal(await f.statusOf(rec.requestId), 'answered');
      assertError(await f.post(answer('s1', rec.requestId)), {
        status: 409,
        code: 'already_answered',
        receipt: { requestId: rec.requestId, toolCallId: 'call_F', status: 'answered', at: iso(T0) },
      });

      const second = await f.ask('s2', SINGLE, 'call_G');
      f.host.resumeError = new StoreUnavailableError('state write timed out');
      res = await f.post(answer('s2', second.requestId));
      const frames = parseSse(res.text);
      assert.deepEqual(
        frames.map((x) => x.event),
        ['interaction_resolved', 'error', 'done'],
      );
      assert.equal((frames[1]!.data as { code: string }).code, 'store_unavailable');
      assert.deepEqual(frames[2]!.data, { reason: 'error' });
    });

    // ------------------------------------------------------------------------- row 0: cross-site

    it('row 0: a browser request from another site is 403 forbidden before anything else; nothing consumed', async () => {
      const rec = await f.ask('s1');
      const crossSite: Array<Record<string, string>> = [
        { origin: 'http://evil.example' },
        { origin: 'null' },
        { origin: f.url.replace(/:\d+$/, ':1') },
        { origin: f.url.replace('127.0.0.1', 'localhost') },
        { origin: 'https://app.example', 'sec-fetch-site': 'cross-site' },
        { 'sec-fetch-site': 'cross-site' },
        { 'sec-fetch-site': 'same-site' },
        // Forwarded headers are not the server's origin unless the host was told to trust a proxy.
        { origin: 'http://evil.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'http' },
      ];
      for (const headers of crossSite) {
        const res = await f.post(answer('s1', rec.requestId), { headers: { ...JSON_TYPE, ...headers } });
        assertError(res, { status: 403, code: 'forbidden' }, JSON.stringify(headers));
        assertRejectedAudit(f, 'forbidden');
      }
      assert.deepEqual(f.authorized, [], 'refused before authorize');
      assert.equal(await f.statusOf(rec.requestId), 'pending');
      accepted(await f.post(answer('s1', rec.requestId), { headers: { ...JSON_TYPE, origin: f.url, 'sec-fetch-site': 'same-origin' } }));
    });

    it('row 0 precedes rows 1–4 and 11: not JSON, too big, malformed, refused by authorize or with the store down, a cross-site request is 403 forbidden', async () => {
      const rec = await f.ask('s1');
      const callsBefore = f.broken.calls.length;
      const evil = { origin: 'http://evil.example' };
      const cases: Array<[string, () => Promise<HttpResponse>]> = [
        ['not JSON', () => f.post('a=b', { headers: { 'content-type': 'application/x-www-form-urlencoded', ...evil } })],
        ['too big', () => f.post(bodyOfSize('s1', rec.requestId, BODY_LIMIT + 1), { headers: { ...JSON_TYPE, ...evil } })],
        ['invalid JSON', () => f.post('{"sessionId":', { headers: { ...JSON_TYPE, ...evil } })],
        ['wrong shape', () => f.post({ sessionId: 's1' }, { headers: { ...JSON_TYPE, ...evil } })],
        ['no body', () => f.post('', { headers: { ...JSON_TYPE, ...evil } })],
        [
          'authorize refuses',
          () => f.post(answer('s1', rec.requestId), { headers: { ...JSON_TYPE, ...INTRUDER, 'sec-fetch-site': 'cross-site' } }),
        ],
      ];
      for (const [label, run] of cases) assertError(await run(), { status: 403, code: 'forbidden' }, label);
      f.broken.failing.add('get');
      f.broken.failing.add('claim');
      assertError(
        await f.post(answer('s1', rec.requestId), { headers: { ...JSON_TYPE, ...evil } }),
        { status: 403, code: 'forbidden' },
        'store down',
      );
      assert.deepEqual(f.authorized, []);
      assert.equal(f.broken.calls.length, callsBefore, 'the store is not read for a cross-site request');
    });

    it("row 0: the server's own origin, an allowed front-end origin, and a request without browser headers go on", async () => {
      await f.close();
      f = await startFixture(hut, { allowedOrigins: ['https://app.example'] });
      const passing: Array<Record<string, string>> = [
        {},
        { origin: f.url },
        { origin: f.url, 'sec-fetch-site': 'same-origin' },
        { 'sec-fetch-site': 'same-origin' },
        { 'sec-fetch-site': 'none' },
        { origin: 'https://app.example', 'sec-fetch-site': 'cross-site' },
        { origin: 'https://app.example', 'sec-fetch-site': 'same-site' },
      ];
      for (const [i, headers] of passing.entries()) {
        const rec = await f.ask(`pass-${i}`);
        accepted(await f.post(answer(`pass-${i}`, rec.requestId), { headers: { ...JSON_TYPE, ...headers } }), JSON.stringify(headers));
      }
      const rec = await f.ask('still-refused');
      assertError(await f.post(answer('still-refused', rec.requestId), { headers: { ...JSON_TYPE, origin: 'https://other.example' } }), {
        status: 403,
        code: 'forbidden',
      });
    });

    // -------------------------------------------------------------------------- row 1: not JSON

    it('row 1: a Content-Type that is not JSON is 415 invalid_request without quoting the header; nothing consumed', async () => {
      const rec = await f.ask('s1');
      const body = JSON.stringify(answer('s1', rec.requestId));
      for (const type of [
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=xyz',
        `text/x-${CANARY}`,
        undefined,
      ]) {
        const res = await f.post(body, { headers: type === undefined ? {} : { 'content-type': type } });
        assertError(res, { status: 415, code: 'invalid_request' }, String(type));
        assertRejectedAudit(f, 'invalid_request');
      }
      assert.deepEqual(f.authorized, []);
      assert.equal(await f.statusOf(rec.requestId), 'pending');
    });

    it('row 1: every JSON media type is JSON (charset parameter, +json suffix, any letter case)', async () => {
      for (const [i, type] of ['application/json; charset=utf-8', 'application/vnd.answer+json', 'Application/JSON'].entries()) {
        const rec = await f.ask(`t${i}`);
        accepted(await f.post(JSON.stringify(answer(`t${i}`, rec.requestId)), { headers: { 'content-type': type } }), type);
        assert.equal(await f.statusOf(rec.requestId), 'answered');
      }
    });

    it('row 1 precedes row 2: a body that is both not JSON and too big is 415', async () => {
      const rec = await f.ask('s1');
      const res = await f.post(bodyOfSize('s1', rec.requestId, BODY_LIMIT + 1), { headers: { 'content-type': 'text/plain' } });
      assertError(res, { status: 415, code: 'invalid_request' });
    });

    it("row 1 precedes row 3: an empty body declared as text/plain is 415 (the checks run in the table's order)", async () => {
      const rec = await f.ask('s1');
      assertError(await f.post('', { headers: { 'content-type': 'text/plain' } }), { status: 415, code: 'invalid_request' });
      assert.equal(await f.statusOf(rec.requestId), 'pending');
    });

    // ------------------------------------------------------------------------- row 2: too big

    it('row 2: a body over 64 KiB is 413 invalid_request, declared or chunked; exactly 64 KiB is accepted', async () => {
      const rec = await f.ask('s1');
      const big = bodyOfSize('s1', rec.requestId, BODY_LIMIT + 1);
      assertError(await f.post(big, { headers: JSON_TYPE }), { status: 413, code: 'invalid_request' }, 'content-length');
      assertRejectedAudit(f, 'invalid_request');
      assertError(await f.post(big, { headers: JSON_TYPE, chunked: true }), { status: 413, code: 'invalid_request' }, 'chunked');
      assertError(
        await f.post(bodyOfSize('s1', rec.requestId, 4 * BODY_LIMIT), { headers: JSON_TYPE, chunked: true }),
        { status: 413, code: 'invalid_request' },
        'chunked ×4',
      );
      assert.deepEqual(f.authorized, []);
      assert.equal(await f.statusOf(rec.requestId), 'pending');
      accepted(await f.post(bodyOfSize('s1', rec.requestId, BODY_LIMIT), { headers: JSON_TYPE }), 'exactly 64 KiB');
    });

    it('row 2 precedes row 3: a body too big and not valid JSON is 413', async () => {
      const res = await f.post(`{"sessionId": "${'x'.repeat(BODY_LIMIT)}`, { headers: JSON_TYPE });
      assertError(res, { status: 413, code: 'invalid_request' });
    });

    // ------------------------------------------------------------------------ row 3: malformed

    it('row 3: no body, invalid JSON or a non-object is 400 invalid_request without a field', async () => {
      const rec = await f.ask('s1');
      assertError(await send(f.continueUrl, { method: 'POST' }), { status: 400, code: 'invalid_request' }, 'no body, no type');
      for (const raw of ['', '{"sessionId":', '[1,2]', '"text"', 'null', `{"sessionId": "${CANARY}"`]) {
        const res = await f.post(raw, { headers: JSON_TYPE });
        assertError(res, { status: 400, code: 'invalid_request' }, JSON.stringify(raw));
        assertRejectedAudit(f, 'invalid_request');
      }
      assert.equal(await f.statusOf(rec.requestId), 'pending');
    });

    it('row 3: a body of the wrong shape or with a malformed id is 400 invalid_request naming the field; neither authorize nor the store is asked', async () => {
      const rec = await f.ask('s1');
      const ok = answer('s1', rec.requestId);
      const { sessionId: _s, ...noSession } = ok;
      const { customInput: _c, ...noCustom } = ok;
      const { cancelled: _x, ...noCancelled } = ok;
      const cases: Array<[unknown, string]> = [
        [noSession, 'sessionId'],
        [{ ...ok, sessionId: '' }, 'sessionId'],
        [{ ...ok, sessionId: `has space ${CANARY}` }, 'sessionId'],
        [{ ...ok, sessionId: 's'.repeat(129) }, 'sessionId'],
        [{ ...ok, sessionId: 42 }, 'sessionId'],
        [{ ...ok, requestId: 'nope' }, 'requestId'],
        [{ ...ok, requestId: `ask_${'A'.repeat(21)}` }, 'requestId'],
        [{ ...ok, requestId: `ask_${'A'.repeat(65)}` }, 'requestId'],
        [{ ...ok, requestId: `ask_../../${CANARY}/AAAAAAAAAAAAAAAA` }, 'requestId'],
        [{ ...ok, selections: 'safe' }, 'selections'],
        [{ ...ok, selections: [1] }, 'selections.0'],
        [{ ...ok, selections: Array.from({ length: 51 }, (_, i) => `${CANARY}-${i}`) }, 'selections'],
        [{ ...ok, selections: ['safe', CANARY.repeat(9)] }, 'selections.1'],
        [noCustom, 'customInput'],
        [{ ...ok, customInput: CANARY.repeat(Math.ceil(8001 / CANARY.length)) }, 'customInput'],
        [noCancelled, 'cancelled'],
        [{ ...ok, cancelled: CANARY }, 'cancelled'],
      ];
      const callsBefore = f.broken.calls.length;
      for (const [body, field] of cases) {
        const res = await f.post(body, { headers: { ...JSON_TYPE, ...INTRUDER } });
        assertError(res, { status: 400, code: 'invalid_request', field }, field);
        assertRejectedAudit(f, 'invalid_request');
      }
      assert.deepEqual(f.authorized, [], 'row 3 precedes row 4');
      assert.equal(f.broken.calls.length, callsBefore, 'a malformed body never reaches the store');
      assert.equal(await f.statusOf(rec.requestId), 'pending');
    });

    it('row 3 limits are inclusive: 50 selections of 128 characters and 8000 characters of customInput are well-formed', async () => {
      const rec = await f.ask('s1', { title: 'Which?', mode: 'multiple', allowCustom: true, options: [{ id: 'a', label: 'A' }] });
      // Well-formed, so it gets past row 3 and is refused by row 10 for its unknown ids instead.
      const res = await f.post(
        answer('s1', rec.requestId, {
          selections: Array.from({ length: 50 }, (_, i) => `${i}`.padStart(128, 'x')),
          customInput: 'y'.repeat(8000),
        }),
      );
      assertError(res, { status: 422, code: 'invalid_answer', field: 'selections' });
      accepted(await f.post(answer('s1', rec.requestId, { selections: ['a'], customInput: 'y'.repeat(8000) })));
    });

    // ------------------------------------------------------------------------ row 4: authorize

    it('row 4: authorize refusing the session is 403 forbidden; it is asked about the session the body names; nothing consumed', async () => {
      const rec = await f.ask('s1');
      const res = await f.post(answer('s1', rec.requestId), { headers: { ...JSON_TYPE, ...INTRUDER } });
      assertError(res, { status: 403, code: 'forbidden' });
      assertRejectedAudit(f, 'forbidden');
      assert.deepEqual(f.authorized, ['s1']);
      assert.equal(await f.statusOf(rec.requestId), 'pending');
      accepted(await f.post(answer('s1', rec.requestId)));
      assert.deepEqual(f.authorized, ['s1', 's1']);
    });

    it("row 4 precedes rows 5–11: a refused caller gets the same 403 whether the question is unknown, another session's, closed, expired, not resumable, wrong or unreachable", async () => {
      const open1 = await f.ask('s1');
      const other = await f.ask('other');
      const answered = await f.ask('s2');
      accepted(await f.post(answer('s2', answered.requestId)));
      const expiring = await f.ask('s3');
      const callsBefore = f.broken.calls.length;
      const refused = async (body: unknown) => {
        const res = await f.post(body, { headers: { ...JSON_TYPE, ...INTRUDER } });
        assertError(res, { status: 403, code: 'forbidden' }, JSON.stringify(body));
        return res.text;
      };
      const bodies = new Set<string>();
      bodies.add(await refused(answer('s1', 'ask_AAAAAAAAAAAAAAAAAAAAAA')));
      bodies.add(await refused(answer('s1', other.requestId)));
      bodies.add(await refused(answer('s2', answered.requestId)));
      bodies.add(await refused(answer('s1', open1.requestId, { selections: [CANARY] })));
      f.host.resumable = false;
      bodies.add(await refused(answer('s1', open1.requestId)));
      f.host.resumable = true;
      f.clock.now = expiring.expiresAt + 1;
      bodies.add(await refused(answer('s3', expiring.requestId)));
      f.broken.failing.add('get');
      bodies.add(await refused(answer('s1', open1.requestId)));
      assert.equal(bodies.size, 1, 'the refusal reveals nothing about the question');
      assert.equal(f.broken.calls.length, callsBefore, 'the store is not read for a refused caller');
    });

    // ------------------------------------------------------------------------ row 5: not found

    it('row 5: an unknown requestId is 404 not_found', async () => {
      const res = await f.post(answer('s1', 'ask_AAAAAAAAAAAAAAAAAAAAAA'));
      assertError(res, { status: 404, code: 'not_found', field: 'requestId' });
      assertRejectedAudit(f, 'not_found');
    });

    it('row 5: past retention a question is 404 not_found; until then 409 or 410 (retention counts from the resolution, or from expiresAt if nothing resolved it)', async () => {
      const answered = await f.ask('s1', SINGLE, 'call_R');
      f.clock.now = T0 + 1000;
      accepted(await f.post(answer('s1', answered.requestId)));
      f.clock.now = T0 + 1000 + RETENTION_MS - 1;
      assertError(await f.post(answer('s1', answered.requestId)), {
        status: 409,
        code: 'already_answered',
        receipt: { requestId: answered.requestId, toolCallId: 'call_R', status: 'answered', at: iso(T0 + 1000) },
      });
      f.clock.now = T0 + 1000 + RETENTION_MS;
      assertError(
        await f.post(answer('s1', answered.requestId)),
        { status: 404, code: 'not_found', field: 'requestId' },
        'answered, past retention',
      );

      f.clock.now = T0;
      const swept = await f.ask('s2');
      const untouched = await f.ask('s3');
      const late = await f.ask('s4');
      f.clock.now = swept.expiresAt + 10;
      await f.started.kit.expireDue('s2');
      // Touching an overdue question closes it now, so its retention counts from this moment.
      const closedLateAt = late.expiresAt + RETENTION_MS - 1;
      f.clock.now = closedLateAt;
      assertError(await f.post(answer('s4', late.requestId)), { status: 410, code: 'expired' }, 'closed late, within retention');
      f.clock.now = swept.expiresAt + 10 + RETENTION_MS - 1;
      assertError(await f.post(answer('s2', swept.requestId)), { status: 410, code: 'expired' }, 'swept, within retention');
      f.clock.now = swept.expiresAt + 10 + RETENTION_MS;
      assertError(
        await f.post(answer('s2', swept.requestId)),
        { status: 404, code: 'not_found', field: 'requestId' },
        'swept, past retention',
      );
      assertError(
        await f.post(answer('s3', untouched.requestId)),
        { status: 404, code: 'not_found', field: 'requestId' },
        'never closed, past expiresAt + retention',
      );
      assertError(await f.post(answer('s4', late.requestId)), { status: 410, code: 'expired' }, 'closed late, still within its retention');
      f.clock.now = closedLateAt + RETENTION_MS;
      assertError(
        await f.post(answer('s4', late.requestId)),
        { status: 404, code: 'not_found', field: 'requestId' },
        'closed late, past its retention',
      );
    });

    // ----------------------------------------------------------------- row 6: session mismatch

    it('row 6: a requestId of another session is 403 session_mismatch; the owning session is untouched and still answers once', async () => {
      const rec = await f.ask('owner', SINGLE, 'call_O');
      await f.ask('other');
      const res = await f.post(answer('other', rec.requestId, { selections: [CANARY], customInput: CANARY }));
      assertError(res, { status: 403, code: 'session_mismatch', field: 'sessionId' });
      assertRejectedAudit(f, 'session_mismatch');
      assert.equal(await f.statusOf(rec.requestId), 'pending');
      const pending = (await f.pending('owner')).json();
      assert.equal(pending.pending.id, rec.requestId);
      assert.equal(pending.pending.status, 'pending');
      accepted(await f.post(answer('owner', rec.requestId)));
      assert.equal(f.host.resumed.length, 1);
    });

    it("row 6 precedes rows 7–10: another session learns nothing of the question's state (no receipt, no expiry)", async () => {
      const answered = await f.ask('owner-a', SINGLE);
      accepted(await f.post(answer('owner-a', answered.requestId)));
      assertError(
        await f.post(answer('other', answered.requestId)),
        { status: 403, code: 'session_mismatch', field: 'sessionId' },
        'answered',
      );
      const open1 = await f.ask('owner-b', SINGLE);
      assertError(
        await f.post(answer('other', open1.requestId, { selections: [CANARY] })),
        { status: 403, code: 'session_mismatch', field: 'sessionId' },
        'invalid answer',
      );
      f.host.resumable = false;
      assertError(
        await f.post(answer('other', open1.requestId)),
        { status: 403, code: 'session_mismatch', field: 'sessionId' },
        'not resumable',
      );
      f.host.resumable = true;
      f.clock.now = open1.expiresAt + 1;
      assertError(await f.post(answer('other', open1.requestId)), { status: 403, code: 'session_mismatch', field: 'sessionId' }, 'expired');
      assert.equal(f.host.closedCalls.length, 0, "the mismatching request does not close the owner's question");
    });

    // ---------------------------------------------------------------- row 7: already answered

    it("row 7: already answered is 409 already_answered with the first resolution's receipt, whatever the duplicate says or when", async () => {
      const rec = await f.ask('s1', SINGLE, 'call_R');
      f.clock.now = T0 + 500;
      accepted(await f.post(answer('s1', rec.requestId)));
      const receipt = { requestId: rec.requestId, toolCallId: 'call_R', status: 'answered', at: iso(T0 + 500) };
      f.clock.now = T0 + 60_000;
      for (const over of [{}, { selections: ['implement'] }, { cancelled: true }, { selections: [CANARY], customInput: CANARY }]) {
        assertError(
          await f.post(answer('s1', rec.requestId, over)),
          { status: 409, code: 'already_answered', receipt },
          JSON.stringify(over),
        );
        assertRejectedAudit(f, 'already_answered');
      }
      assert.equal(f.host.resumed.length, 1, 'no second ToolResult');
    });

    it('row 7: a cancelled question gives a cancelled receipt; a superseded one a superseded receipt', async () => {
      const cancelled = await f.ask('s1', SINGLE, 'call_X');
      f.clock.now = T0 + 10;
      accepted(await f.post(answer('s1', cancelled.requestId, { cancelled: true })));
      assertError(await f.post(answer('s1', cancelled.requestId)), {
        status: 409,
        code: 'already_answered',
        receipt: { requestId: cancelled.requestId, toolCallId: 'call_X', status: 'cancelled', at: iso(T0 + 10) },
      });

      const first = await f.ask('s2', SINGLE, 'call_1st');
      f.clock.now = T0 + 20;
      await f.ask('s2', SINGLE, 'call_2nd');
      assertError(
        await f.post(answer('s2', first.requestId)),
        {
          status: 409,
          code: 'already_answered',
          receipt: { requestId: first.requestId, toolCallId: 'call_1st', status: 'superseded', at: iso(T0 + 20) },
        },
        'superseded by a new question',
      );

      const third = await f.ask('s3', SINGLE, 'call_3rd');
      f.clock.now = T0 + 30;
      await f.started.kit.supersede('s3');
      assertError(
        await f.post(answer('s3', third.requestId, { cancelled: true })),
        {
          status: 409,
          code: 'already_answered',
          receipt: { requestId: third.requestId, toolCallId: 'call_3rd', status: 'superseded', at: iso(T0 + 30) },
        },
        'superseded by a new message',
      );
    });

    it('row 7 precedes rows 8–10: an answered question stays 409 with its receipt past expiry, when not resumable, and for a wrong answer', async () => {
      const rec = await f.ask('s1', SINGLE, 'call_P');
      accepted(await f.post(answer('s1', rec.requestId)));
      const receipt = { requestId: rec.requestId, toolCallId: 'call_P', status: 'answered', at: iso(T0) };
      assertError(
        await f.post(answer('s1', rec.requestId, { selections: ['nope'] })),
        { status: 409, code: 'already_answered', receipt },
        'wrong answer',
      );
      f.host.resumable = false;
      assertError(await f.post(answer('s1', rec.requestId)), { status: 409, code: 'already_answered', receipt }, 'not resumable');
      f.clock.now = rec.expiresAt + 1;
      assertError(await f.post(answer('s1', rec.requestId)), { status: 409, code: 'already_answered', receipt }, 'past expiry');
    });

    // --------------------------------------------------------------------------- row 8: expired

    it('row 8: past expiresAt with nothing closing it yet is 410 expired; the question is closed, audited and its run ended once', async () => {
      const rec = await f.ask('s1', SINGLE, 'call_E');
      f.clock.now = rec.expiresAt;
      assertError(
        await f.post(answer('s1', rec.requestId, { selections: [CANARY], customInput: CANARY })),
        { status: 410, code: 'expired' },
        'at expiresAt',
      );
      assertRejectedAudit(f, 'expired');
      const stored = await f.store.get(rec.requestId);
      assert.equal(stored?.resolution?.status, 'expired');
      assert.equal(f.host.closedCalls.length, 1);
      assert.equal(f.host.closedCalls[0]!.toolResultContent, '{"selections":[],"customInput":"","cancelled":true,"reason":"expired"}');
      assert.equal(f.audit.entries.filter((e) => e.event === 'expired').length, 1);
      f.clock.now += 60_000;
      assertError(await f.post(answer('s1', rec.requestId)), { status: 410, code: 'expired' }, 'again');
      assert.equal(f.host.closedCalls.length, 1, 'closed once');
      assert.equal(f.host.resumed.length, 0);
    });

    it('row 8: after a sweep closed the question as expired it is still 410 expired (not 409)', async () => {
      const rec = await f.ask('s1', SINGLE, 'call_S');
      f.clock.now = rec.expiresAt + 5;
      const closed = await f.started.kit.expireDue('s1');
      assert.equal(closed?.resolution?.status, 'expired');
      f.clock.now += 1000;
      assertError(await f.post(answer('s1', rec.requestId)), { status: 410, code: 'expired' });
      assertError(await f.post(answer('s1', rec.requestId, { cancelled: true })), { status: 410, code: 'expired' }, 'cancel');
      assert.equal(f.host.closedCalls.length, 1);
    });

    it('row 8: one millisecond before expiresAt the question still answers', async () => {
      const rec = await f.ask('s1');
      assert.equal(rec.expiresAt, T0 + TTL_MS);
      f.clock.now = rec.expiresAt - 1;
      accepted(await f.post(answer('s1', rec.requestId)));
    });

    it('row 8 precedes rows 9–10: an expired question is 410 even when not resumable or answered wrongly', async () => {
      const rec = await f.ask('s1');
      f.clock.now = rec.expiresAt + 1;
      f.host.resumable = false;
      assertError(await f.post(answer('s1', rec.requestId, { selections: ['nope'] })), { status: 410, code: 'expired' });
      assertError(await f.post(answer('s1', rec.requestId)), { status: 410, code: 'expired' });
    });

    // ---------------------------------------------------------------------- row 9: not resumable

    it('row 9: no run paused on the question is 409 not_resumable, checked before the claim; a retry once resumable works', async () => {
      const rec = await f.ask('s1');
      f.host.resumable = false;
      const res = await f.post(answer('s1', rec.requestId));
      assertError(res, { status: 409, code: 'not_resumable' });
      assertRejectedAudit(f, 'not_resumable');
      assert.equal(await f.statusOf(rec.requestId), 'pending');
      assert.deepEqual(
        f.broken.calls.filter((m) => m === 'claim'),
        [],
      );
      f.host.resumable = true;
      accepted(await f.post(answer('s1', rec.requestId)));
    });

    it('row 9 precedes row 10: a wrong answer to a question that cannot resume is 409 not_resumable', async () => {
      const rec = await f.ask('s1');
      f.host.resumable = false;
      assertError(await f.post(answer('s1', rec.requestId, { selections: [CANARY] })), { status: 409, code: 'not_resumable' });
      assertError(await f.post(answer('s1', rec.requestId, { cancelled: true })), { status: 409, code: 'not_resumable' }, 'cancel');
    });

    // ---------------------------------------------------------------------- row 10: invalid answer

    for (const { mode, args, bad, good } of MODE_CASES) {
      it(`row 10 (${mode}): an answer that does not fit the stored form is 422 invalid_answer naming the field; nothing consumed`, async () => {
        const rec = await f.ask('s1', args);
        for (const [over, field] of bad) {
          const res = await f.post(answer('s1', rec.requestId, over));
          assertError(res, { status: 422, code: 'invalid_answer', field }, JSON.stringify(over));
          assertRejectedAudit(f, 'invalid_answer');
          const entry = f.audit.entries.at(-1)!;
          for (const id of entry.selections ?? [])
            assert.ok(
              (rec.form.options ?? []).some((o) => o.id === id),
              'audited selections are ids of the form',
            );
        }
        assert.equal(await f.statusOf(rec.requestId), 'pending');
        assert.equal(f.host.resumed.length, 0);
        const frames = accepted(await f.post(answer('s1', rec.requestId, good)));
        assert.equal(
          (frames[1]!.data as { content: string }).content,
          JSON.stringify({ selections: good.selections, customInput: good.customInput ?? '', cancelled: false }),
        );
      });
    }

    // ------------------------------------------------------------------- row 11: store unavailable

    for (const method of ['get', 'claim']) {
      it(`row 11: the store failing in ${method} is 503 store_unavailable; nothing consumed and a retry succeeds`, async () => {
        const rec = await f.ask('s1');
        f.broken.failing.add(method);
        assertError(await f.post(answer('s1', rec.requestId)), { status: 503, code: 'store_unavailable' });
        assertRejectedAudit(f, 'store_unavailable');
        assertError(await f.post(answer('s1', rec.requestId, { cancelled: true })), { status: 503, code: 'store_unavailable' }, 'cancel');
        f.broken.failing.clear();
        assert.equal(await f.statusOf(rec.requestId), 'pending');
        assert.equal(f.host.resumed.length, 0);
        accepted(await f.post(answer('s1', rec.requestId)));
      });
    }

    it('row 11: a host that cannot read its run state because the store is down is 503 store_unavailable, not 409 not_resumable', async () => {
      const rec = await f.ask('s1');
      f.host.isResumableError = new StoreUnavailableError('run state read timed out');
      assertError(await f.post(answer('s1', rec.requestId)), { status: 503, code: 'store_unavailable' });
      assertRejectedAudit(f, 'store_unavailable');
      f.host.isResumableError = undefined;
      assert.equal(await f.statusOf(rec.requestId), 'pending');
      accepted(await f.post(answer('s1', rec.requestId)));
    });

    it('row 11 comes after rows 1–4: with the store down, a malformed body is still 400 and a refused caller still 403', async () => {
      const rec = await f.ask('s1');
      f.broken.failing.add('get');
      f.broken.failing.add('claim');
      assertError(await f.post(answer('s1', 'nope')), { status: 400, code: 'invalid_request', field: 'requestId' });
      assertError(await f.post(answer('s1', rec.requestId), { headers: { ...JSON_TYPE, ...INTRUDER } }), {
        status: 403,
        code: 'forbidden',
      });
      assertError(await f.post('x', { headers: { 'content-type': 'text/plain' } }), { status: 415, code: 'invalid_request' });
    });

    // ------------------------------------------------------------------------------- exactly once

    it("exactly once: of N concurrent duplicates one gets 200, every other 409 already_answered with the winner's receipt", async () => {
      const N = 12;
      const rec = await f.ask('s1', SINGLE, 'call_N');
      f.clock.now = T0 + 77;
      const bodies = Array.from({ length: N }, (_, i) =>
        i % 3 === 0
          ? answer('s1', rec.requestId, { cancelled: true })
          : answer('s1', rec.requestId, { selections: [i % 3 === 1 ? 'safe' : 'implement'] }),
      );
      const results = await Promise.all(bodies.map((body) => f.post(body)));
      const winners = results.filter((r) => r.status === 200);
      assert.equal(winners.length, 1, `statuses: ${results.map((r) => r.status).join(',')}`);
      const frames = accepted(winners[0]!);
      const resolved = frames[0]!.data as { requestId: string; toolCallId: string; status: string; at: string };
      assert.equal(frames[0]!.event, 'interaction_resolved');
      const receipt = { requestId: resolved.requestId, toolCallId: resolved.toolCallId, status: resolved.status, at: resolved.at };
      assert.deepEqual(receipt, { requestId: rec.requestId, toolCallId: 'call_N', status: receipt.status, at: iso(T0 + 77) });
      for (const r of results) if (r.status !== 200) assertError(r, { status: 409, code: 'already_answered', receipt });
      assert.equal(f.host.resumed.length, 1);
      assert.equal(f.audit.entries.filter((e) => e.event === 'answered' || e.event === 'cancelled').length, 1);
      assert.equal(f.audit.entries.filter((e) => e.event === 'rejected' && e.reason === 'already_answered').length, N - 1);
      assert.equal(await f.statusOf(rec.requestId), receipt.status);
    });

    it('exactly once when expiry won: N concurrent late duplicates all get 410 and the question is closed once', async () => {
      const N = 10;
      const rec = await f.ask('s1', SINGLE, 'call_L');
      f.clock.now = rec.expiresAt + 1;
      const results = await Promise.all(Array.from({ length: N }, () => f.post(answer('s1', rec.requestId))));
      for (const r of results) assertError(r, { status: 410, code: 'expired' });
      assert.equal(f.host.closedCalls.length, 1);
      assert.equal(f.audit.entries.filter((e) => e.event === 'expired').length, 1);
      assert.equal(f.host.resumed.length, 0);
      assert.equal((await f.store.get(rec.requestId))?.resolution?.status, 'expired');
    });

    it('exactly once across instances: duplicates split over two servers sharing the store still have one winner', async () => {
      const N = 10;
      const twinUrl = await f.twin();
      const rec = await f.ask('s1', SINGLE, 'call_T');
      const body = JSON.stringify(answer('s1', rec.requestId));
      const results = await Promise.all(
        Array.from({ length: N }, (_, i) => send(i % 2 === 0 ? f.continueUrl : twinUrl, { method: 'POST', headers: JSON_TYPE, body })),
      );
      f.errorBodies.push(...results.filter((r) => r.status >= 400).map((r) => r.text));
      assert.equal(results.filter((r) => r.status === 200).length, 1, `statuses: ${results.map((r) => r.status).join(',')}`);
      const receipt = { requestId: rec.requestId, toolCallId: 'call_T', status: 'answered', at: iso(T0) };
      for (const r of results) {
        if (r.status === 200) accepted(r);
        else assertError(r, { status: 409, code: 'already_answered', receipt });
      }
      assert.equal(f.host.resumed.length, 1);
    });
  });

  describe(`${hut.name}: GET pending (docs/protocol.md §5)`, () => {
    let f: Fixture;
    beforeEach(async () => {
      f = await startFixture(hut);
    });
    afterEach(async () => {
      try {
        assertNoCanary(f);
      } finally {
        await f.close();
      }
    });

    /** 200 JSON with Cache-Control: no-store; returns the body. */
    const ok = (res: HttpResponse) => {
      assert.equal(res.status, 200, res.text.slice(0, 300));
      assert.equal(res.headers['cache-control'], 'no-store');
      assert.match(String(res.headers['content-type']), /^application\/json\s*(;|$)/i);
      return res.json();
    };
    const refusal = (res: HttpResponse, expected: Parameters<typeof assertError>[1], label?: string) => {
      assertError(res, expected, label);
      assert.equal(res.headers['cache-control'], 'no-store', `${label ?? ''}: refusals are not cached either`);
    };

    it("{ pending: null } for a session that never had a question, and for another session's question", async () => {
      assert.deepEqual(ok(await f.pending('fresh')), { pending: null });
      await f.ask('someone-else');
      assert.deepEqual(ok(await f.pending('fresh')), { pending: null });
      assert.deepEqual(f.authorized, ['fresh', 'fresh']);
    });

    it('an open question: the user_input_required data plus status pending and resumable true', async () => {
      const rec = await f.ask('s1', { ...SINGLE, description: 'why', submitLabel: 'Go', allowCustom: true }, 'call_P');
      f.clock.now = T0 + 1000;
      assert.deepEqual(ok(await f.pending('s1')), {
        pending: {
          id: rec.requestId,
          toolCallId: 'call_P',
          sessionId: 's1',
          title: SINGLE.title,
          description: 'why',
          mode: 'single',
          options: SINGLE.options,
          allowCustom: true,
          submitLabel: 'Go',
          expiresAt: iso(T0 + TTL_MS),
          resumable: true,
          status: 'pending',
        },
      });
    });

    it('an open question with §9.1 bounds, default and placeholder: carried unchanged, numbers as JSON numbers', async () => {
      const bounds = { placeholder: '0–5', default: '2.5', min: 0, max: 5, step: 0.5 };
      const rec = await f.ask('s1', { title: 'How many?', mode: 'number', ...bounds }, 'call_B');
      const body = ok(await f.pending('s1')) as { pending: Record<string, unknown> };
      assert.deepEqual(body.pending, {
        id: rec.requestId,
        toolCallId: 'call_B',
        sessionId: 's1',
        title: 'How many?',
        mode: 'number',
        expiresAt: iso(T0 + TTL_MS),
        resumable: true,
        status: 'pending',
        ...bounds,
      });
      for (const k of ['min', 'max', 'step'] as const) assert.equal(typeof body.pending[k], 'number', k);
    });

    it('an open question whose run is gone: resumable false, still pending', async () => {
      const rec = await f.ask('s1', { title: 'Name?', mode: 'text' }, 'call_T');
      f.host.resumable = false;
      assert.deepEqual(ok(await f.pending('s1')), {
        pending: {
          id: rec.requestId,
          toolCallId: 'call_T',
          sessionId: 's1',
          title: 'Name?',
          mode: 'text',
          expiresAt: iso(T0 + TTL_MS),
          resumable: false,
          status: 'pending',
        },
      });
    });

    it('{ pending: null } once the question was answered, cancelled or superseded', async () => {
      const a = await f.ask('answered');
      accepted(await f.post(answer('answered', a.requestId, { customInput: '' })));
      assert.deepEqual(ok(await f.pending('answered')), { pending: null });
      const c = await f.ask('cancelled');
      accepted(await f.post(answer('cancelled', c.requestId, { cancelled: true })));
      assert.deepEqual(ok(await f.pending('cancelled')), { pending: null });
      await f.ask('superseded');
      await f.started.kit.supersede('superseded');
      assert.deepEqual(ok(await f.pending('superseded')), { pending: null });
    });

    it('an expired question within retention, found overdue here: status expired, resumable false; closed and audited once', async () => {
      const rec = await f.ask('s1', SINGLE, 'call_X');
      f.clock.now = rec.expiresAt + 60_000;
      const expected = {
        pending: {
          id: rec.requestId,
          toolCallId: 'call_X',
          sessionId: 's1',
          title: SINGLE.title,
          mode: 'single',
          options: SINGLE.options,
          expiresAt: iso(rec.expiresAt),
          resumable: false,
          status: 'expired',
        },
      };
      assert.deepEqual(ok(await f.pending('s1')), expected);
      assert.equal((await f.store.get(rec.requestId))?.resolution?.status, 'expired', 'closed before the answer was written');
      assert.equal(f.host.closedCalls.length, 1);
      assert.equal(f.audit.entries.filter((e) => e.event === 'expired').length, 1);
      f.clock.now += 1000;
      assert.deepEqual(ok(await f.pending('s1')), expected);
      assert.equal(f.host.closedCalls.length, 1, 'closed once');
      assert.equal(f.audit.entries.filter((e) => e.event === 'expired').length, 1);
    });

    it('an expired question closed by a sweep: status expired, resumable false, until retention ends', async () => {
      const rec = await f.ask('s1', SINGLE, 'call_Y');
      f.clock.now = rec.expiresAt + 1;
      await f.started.kit.expireDue('s1');
      const body = ok(await f.pending('s1'));
      assert.equal(body.pending.id, rec.requestId);
      assert.equal(body.pending.status, 'expired');
      assert.equal(body.pending.resumable, false);
      f.clock.now = rec.expiresAt + RETENTION_MS - 1;
      assert.equal(ok(await f.pending('s1')).pending.status, 'expired');
      f.clock.now = rec.expiresAt + RETENTION_MS + 1;
      assert.deepEqual(ok(await f.pending('s1')), { pending: null });
    });

    it('missing or invalid sessionId: 400 invalid_request with field sessionId; authorize and the store are not asked', async () => {
      const callsBefore = f.broken.calls.length;
      const urls = [
        f.pendingUrl(),
        f.pendingUrl(''),
        f.pendingUrl(`has space ${CANARY}`),
        f.pendingUrl('s'.repeat(129)),
        `${f.pendingUrl('a')}&sessionId=b`,
        f.pendingUrl(`${CANARY}\u00e9`),
      ];
      for (const url of urls) {
        const res = await send(url);
        f.errorBodies.push(res.text);
        refusal(res, { status: 400, code: 'invalid_request', field: 'sessionId' }, url);
        assertRejectedAudit(f, 'invalid_request');
      }
      assert.deepEqual(f.authorized, []);
      assert.equal(f.broken.calls.length, callsBefore);
    });

    it('authorize refuses: 403 forbidden, the same whether or not the session has a question; the store is not read', async () => {
      await f.ask('s1');
      const callsBefore = f.broken.calls.length;
      const withQuestion = await f.pending('s1', INTRUDER);
      refusal(withQuestion, { status: 403, code: 'forbidden' });
      assertRejectedAudit(f, 'forbidden');
      const without = await f.pending('empty', INTRUDER);
      refusal(without, { status: 403, code: 'forbidden' });
      assert.equal(withQuestion.text, without.text);
      f.broken.failing.add('currentOf');
      refusal(await f.pending('s1', INTRUDER), { status: 403, code: 'forbidden' }, 'store down');
      assert.equal(f.broken.calls.length, callsBefore);
      assert.deepEqual(f.authorized, ['s1', 'empty', 's1']);
    });

    it('store unreachable while the host reads its run state: 503 store_unavailable', async () => {
      await f.ask('s1');
      f.host.isResumableError = new StoreUnavailableError('run state read timed out');
      refusal(await f.pending('s1'), { status: 503, code: 'store_unavailable' });
      f.host.isResumableError = undefined;
      assert.equal(ok(await f.pending('s1')).pending.resumable, true);
    });

    it('store unreachable: 503 store_unavailable', async () => {
      await f.ask('s1');
      f.broken.failing.add('currentOf');
      refusal(await f.pending('s1'), { status: 503, code: 'store_unavailable' });
      assertRejectedAudit(f, 'store_unavailable');
      f.broken.failing.clear();
      assert.equal(ok(await f.pending('s1')).pending.status, 'pending');
    });
  });

  describe(`${hut.name}: prefix`, () => {
    it("serves both routes under the kit's prefix", async () => {
      const f = await startFixture(hut, { prefix: '/agent/v2' });
      try {
        assert.equal(f.continueUrl, `${f.url}/agent/v2/chat/continue`);
        const rec = await f.ask('s1');
        assert.equal((await send(f.pendingUrl('s1'))).json().pending.id, rec.requestId);
        accepted(await f.post(answer('s1', rec.requestId)));
      } finally {
        await f.close();
      }
    });
  });
}
