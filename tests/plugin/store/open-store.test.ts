import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openStore } from '../../../plugin/store/open-store.js';
import { StoreError } from '../../../plugin/store/store-errors.js';
import { parseStoreUrl } from '../../../plugin/store/store-url.js';

const isCode = (code: string) => (e: unknown) => e instanceof StoreError && e.code === code;

describe('parseStoreUrl', () => {
  it('accepts the documented forms', () => {
    assert.deepEqual(parseStoreUrl('memory'), { kind: 'memory' });
    assert.deepEqual(parseStoreUrl('sqlite://.data/ask-user.db'), { kind: 'sqlite', file: '.data/ask-user.db' });
    assert.deepEqual(parseStoreUrl('sqlite:///var/lib/app/x.db'), { kind: 'sqlite', file: '/var/lib/app/x.db' });
    assert.deepEqual(parseStoreUrl('redis://127.0.0.1:6379'), {
      kind: 'redis',
      url: 'redis://127.0.0.1:6379',
      label: 'redis://127.0.0.1:6379',
    });
    assert.equal(parseStoreUrl('rediss://cache.internal:6380/2').kind, 'redis');
    assert.deepEqual(parseStoreUrl('postgres://app@db.internal:5432/kit'), {
      kind: 'postgres',
      url: 'postgres://app@db.internal:5432/kit',
      label: 'postgres://db.internal:5432/kit',
    });
    assert.equal(parseStoreUrl('postgresql://db.internal/kit?sslmode=require').kind, 'postgres');
  });

  it('keeps credentials out of the label', () => {
    const target = parseStoreUrl('redis://app:s3cret@cache.internal:6379/1');
    assert.equal(target.kind === 'redis' && target.label, 'redis://cache.internal:6379/1');
    // A query may carry a password too (`?password=`), so none of it is shown.
    const pg = parseStoreUrl('postgresql://app:s3cret@db.internal:6432/kit?password=s3cret&sslmode=require');
    assert.equal(pg.kind === 'postgres' && pg.label, 'postgresql://db.internal:6432/kit');
  });

  it('names the accepted forms when it refuses one, without echoing a password', () => {
    for (const url of ['postgres:///x', 'sqlite://', 'redis://h:1/notanumber', 'memcached', '']) {
      assert.throws(() => parseStoreUrl(url), isCode('invalid_store_url'), url);
    }
    assert.throws(
      () => parseStoreUrl('mongodb://user:hunter2@db/x'),
      (e: unknown) =>
        e instanceof StoreError &&
        /memory, sqlite:\/\/<file path>, redis:\/\/.*postgres:\/\//.test(e.message) &&
        !e.message.includes('hunter2'),
    );
    assert.throws(
      () => parseStoreUrl('postgres:///kit?password=hunter2'),
      (e: unknown) => e instanceof StoreError && e.code === 'invalid_store_url' && !e.message.includes('hunter2'),
    );
  });
});

describe('openStore', () => {
  it('rejects an unknown scheme with invalid_store_url', async () => {
    await assert.rejects(openStore('ftp://example/x'), isCode('invalid_store_url'));
  });

  it('rejects out-of-range options with invalid_store_options', async () => {
    await assert.rejects(openStore('memory', { timeoutMs: 0 }), isCode('invalid_store_options'));
    await assert.rejects(openStore('memory', { retentionMs: -1 }), isCode('invalid_store_options'));
    await assert.rejects(openStore('memory', { namespace: 'a:b' }), isCode('invalid_store_options'));
  });

  it('opens a memory store with the documented defaults', async () => {
    const store = await openStore('memory');
    assert.equal(store.kind, 'memory');
    assert.equal(await store.putState('k', 1, { ifVersion: null }), true);
    await store.close();
  });
});
