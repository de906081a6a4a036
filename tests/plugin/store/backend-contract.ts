/**
 * The one primitive every backend provides, tested directly: compare-and-swap on the raw row, and the
 * write deadline that makes a timed-out write safe to retry.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Backend } from '../../../plugin/store/backend.js';
import { StoreUnavailableError } from '../../../plugin/store/types.js';

export function backendContract(name: string, openBackend: () => Promise<Backend>): void {
  describe(`Backend swap primitive: ${name}`, () => {
    let backend: Backend;
    const key = () => `bk${randomBytes(6).toString('hex')}:x`;
    const soon = () => Date.now() + 1000;
    before(async () => {
      backend = await openBackend();
    });
    after(async () => {
      await backend.close();
    });

    it('inserts only where no row is, and replaces only the exact raw value', async () => {
      const k = key();
      assert.equal(await backend.swap({ key: k, expect: { kind: 'absent' }, next: 'one', deadline: soon() }), true);
      assert.equal(await backend.swap({ key: k, expect: { kind: 'absent' }, next: 'two', deadline: soon() }), false);
      assert.equal(await backend.swap({ key: k, expect: { kind: 'raw', raw: 'two' }, next: 'three', deadline: soon() }), false);
      assert.equal(await backend.read(k), 'one');
      assert.equal(await backend.swap({ key: k, expect: { kind: 'raw', raw: 'one' }, next: 'three', deadline: soon() }), true);
      assert.equal(await backend.swap({ key: k, expect: { kind: 'any' }, next: 'four', deadline: soon() }), true);
      assert.equal(await backend.read(k), 'four');
    });

    it('deletes only the exact raw value', async () => {
      const k = key();
      await backend.swap({ key: k, expect: { kind: 'any' }, next: 'v', deadline: soon() });
      assert.equal(await backend.swap({ key: k, expect: { kind: 'raw', raw: 'w' }, next: null, deadline: soon() }), false);
      assert.equal(await backend.swap({ key: k, expect: { kind: 'raw', raw: 'v' }, next: null, deadline: soon() }), true);
      assert.equal(await backend.read(k), undefined);
      assert.equal(
        await backend.swap({ key: k, expect: { kind: 'raw', raw: 'v' }, next: 'again', deadline: soon() }),
        false,
        'no row matches no raw value',
      );
    });

    it('gives one true to 50 concurrent swaps from the same expectation', async () => {
      const k = key();
      await backend.swap({ key: k, expect: { kind: 'any' }, next: 'start', deadline: soon() });
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          backend.swap({ key: k, expect: { kind: 'raw', raw: 'start' }, next: `w${i}`, deadline: soon() }),
        ),
      );
      assert.equal(results.filter(Boolean).length, 1);
      assert.equal(await backend.read(k), `w${results.indexOf(true)}`);
    });

    it('refuses a write past its deadline and changes nothing', async () => {
      // Well past, not 1 ms: Redis checks the deadline on its own clock, known here to about half a round trip.
      const past = () => Date.now() - 100;
      const k = key();
      await backend.swap({ key: k, expect: { kind: 'any' }, next: 'kept', deadline: soon() });
      for (const expect of [{ kind: 'any' } as const, { kind: 'raw', raw: 'kept' } as const]) {
        await assert.rejects(backend.swap({ key: k, expect, next: 'late', deadline: past() }), StoreUnavailableError);
      }
      await assert.rejects(backend.swap({ key: key(), expect: { kind: 'absent' }, next: 'late', deadline: past() }), StoreUnavailableError);
      assert.equal(await backend.read(k), 'kept');
    });
  });
}
