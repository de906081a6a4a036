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

    it('matches a versioned row by the version and life in its head, and nothing else', async () => {
      const k = key();
      const row = (version: string, purgeAt?: number) =>
        JSON.stringify({ value: { version, ...(purgeAt !== undefined ? { purgeAt } : {}), value: { v: 'version":"x' } } });
      const at = (version: string, liveAt = 1000) => ({ kind: 'version' as const, version, liveAt });
      assert.equal(await backend.swap({ key: k, expect: at('a'), next: row('b'), deadline: soon() }), false, 'no row, no version');
      await backend.swap({ key: k, expect: { kind: 'any' }, next: row('a'), deadline: soon() });
      assert.equal(
        await backend.swap({ key: k, expect: at('x'), next: row('b'), deadline: soon() }),
        false,
        'a version inside the value is not the version',
      );
      assert.equal(await backend.swap({ key: k, expect: at('a'), next: row('b', 2000), deadline: soon() }), true);
      assert.equal(await backend.read(k), row('b', 2000));
      assert.equal(await backend.swap({ key: k, expect: at('b', 2000), next: row('c'), deadline: soon() }), false, 'dead at its purgeAt');
      assert.equal(await backend.swap({ key: k, expect: at('b', 1999), next: null, deadline: soon() }), true, 'a delete by version');
      assert.equal(await backend.read(k), undefined);
      // A row with the same fields in another order is not read by its head: the store then reads it whole.
      await backend.swap({
        key: k,
        expect: { kind: 'any' },
        next: JSON.stringify({ value: { value: 1, version: 'd' } }),
        deadline: soon(),
      });
      assert.equal(await backend.swap({ key: k, expect: at('d'), next: row('e'), deadline: soon() }), false);
    });

    it('scans the keys under a prefix in pages that resume from a cursor', async () => {
      const prefix = `scan${randomBytes(4).toString('hex')}:*[?]:`;
      const made = Array.from({ length: 23 }, (_, i) => `${prefix}${String(i).padStart(2, '0')}`);
      for (const k of made) await backend.swap({ key: k, expect: { kind: 'any' }, next: 'v', deadline: soon() });
      await backend.swap({ key: `${prefix.slice(0, -1)}-other`, expect: { kind: 'any' }, next: 'v', deadline: soon() });
      const seen = new Set<string>();
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await backend.scan(prefix, cursor, 5);
        for (const [k, raw] of page.entries) {
          assert.equal(raw, 'v', 'each key with its row');
          seen.add(k);
        }
        cursor = page.cursor;
        pages++;
        assert.ok(pages < 100, 'the scan ends');
      } while (cursor !== undefined);
      assert.deepEqual([...seen].sort(), made, 'every key under the prefix (taken literally), none outside it');
    });

    it('reads many rows in one call, in the order asked, undefined where none is', async () => {
      const [a, b] = [key(), key()];
      await backend.swap({ key: a, expect: { kind: 'any' }, next: 'A', deadline: soon() });
      await backend.swap({ key: b, expect: { kind: 'any' }, next: 'B', deadline: soon() });
      assert.deepEqual(await backend.readMany([b, key(), a]), ['B', undefined, 'A']);
      assert.deepEqual(await backend.readMany([]), []);
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
