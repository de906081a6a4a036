/**
 * The bad-input catalogue (fixtures/bad-inputs.ts) against the real continue route over HTTP, on memory,
 * SQLite, PostgreSQL and Redis Cluster: each row gets its status and error code, and after each one the question is
 * exactly as it was — same stored record, still pending on GET, no ToolResult, no `answered` audit. Rows
 * refused for their shape must be refused before the store is asked at all (a counting proxy wraps the
 * store).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { errorBodySchema } from '../../plugin/contract/schema.js';
import { hookedStore, startApp, type TestApp } from '../plugin/harness.js';
import { BAD_INPUTS, BAD_PENDING_QUERIES, FORMS } from './fixtures/bad-inputs.js';
import { sendRow } from './helpers/raw-request.js';
import { storeKinds } from './helpers/stores.js';

const { cases } = storeKinds(['memory', 'sqlite', 'postgres', 'redis-cluster']);
const prototypeKeysBefore = Object.getOwnPropertyNames(Object.prototype).sort();

it('the catalogue holds at least 40 rows, each named once', () => {
  assert.ok(BAD_INPUTS.length >= 40, `only ${BAD_INPUTS.length} rows`);
  assert.equal(new Set(BAD_INPUTS.map((r) => r.name)).size, BAD_INPUTS.length, 'row names are unique');
});

for (const storeCase of cases) {
  describe(`bad inputs to POST /api/chat/continue (${storeCase.name} store)`, () => {
    let t: TestApp;
    let calls = 0;
    before(async () => {
      t = await startApp({ storeCase, wrapStore: (s) => hookedStore(s, () => void calls++) });
    });
    after(() => t.close());

    BAD_INPUTS.forEach((row, i) => {
      it(`${row.status} ${row.code}: ${row.name}`, async () => {
        const sessionId = `bad-${i}`;
        const asked = await t.ask(sessionId, FORMS[row.form], `call_bad_${i}`);
        const stored = structuredClone(await t.store.get(asked.requestId));
        calls = 0;
        const res = await sendRow(t.continueUrl, row, { sessionId, requestId: asked.requestId });
        const storeCalls = calls;
        const text = await res.text();
        assert.equal(res.status, row.status, `status; body ${text.slice(0, 300)}`);
        assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
        const body = errorBodySchema.parse(JSON.parse(text));
        assert.equal(body.error.code, row.code);
        assert.ok(body.error.message.length > 0, 'the error says what was wrong');
        if (row.storeUntouched) assert.equal(storeCalls, 0, 'the store must not be asked about a malformed request');
        else assert.ok(storeCalls > 0, 'this row is decided by what the store holds');

        // Nothing changed: the same record, still pending, no ToolResult, nothing answered.
        assert.deepEqual(await t.store.get(asked.requestId), stored);
        const pending = (await (await fetch(t.pendingUrl(sessionId))).json()) as { pending: { id: string; status: string } | null };
        assert.equal(pending.pending?.id, asked.requestId);
        assert.equal(pending.pending?.status, 'pending');
        assert.equal(t.host!.resumed.length, 0, 'no resume');
        assert.equal(t.host!.closedCalls.length, 0, 'no close');
        const mine = t.audit.entries.filter((e) => e.requestId === asked.requestId);
        assert.deepEqual(
          mine.filter((e) => e.event !== 'asked' && e.event !== 'rejected'),
          [],
          'no answered/cancelled audit',
        );
        // A refusal is audited as `rejected` with the code, ids only once they are well-formed.
        const rejected = t.audit.entries.at(-1)!;
        assert.equal(rejected.event, 'rejected');
        assert.equal(rejected.reason, row.code);
      });
    });

    for (const row of BAD_PENDING_QUERIES) {
      it(`GET pending 400 invalid_request: ${row.name}`, async () => {
        calls = 0;
        const res = await fetch(`${t.url}${t.kit.prefix}/interactions/pending${row.query}`);
        const body = errorBodySchema.parse(await res.json());
        assert.equal(res.status, 400);
        assert.equal(body.error.code, 'invalid_request');
        assert.equal(body.error.field, 'sessionId');
        assert.equal(calls, 0, 'the store must not be asked');
      });
    }

    it('left Object.prototype unpolluted', () => {
      assert.deepEqual(Object.getOwnPropertyNames(Object.prototype).sort(), prototypeKeysBefore);
      const probe = {} as Record<string, unknown>;
      assert.equal(probe.polluted, undefined);
      assert.equal(probe.isAdmin, undefined);
      assert.equal(probe.selections, undefined);
    });
  });
}
