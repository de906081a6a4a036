/**
 * The claim is atomic across processes, not just across promises: four Node processes, 25 concurrent
 * claims each, on one SQLite file, on one Redis and on one PostgreSQL, and exactly one claim wins overall.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { openStore } from '../../../plugin/store/open-store.js';
import { startPostgresServer, type PostgresServer } from '../../helpers/postgres-server.js';
import { startRedisServer, type RedisServer } from '../../helpers/redis-server.js';
import { makeTempDir, type TempDir } from '../../helpers/temp-dir.js';
import { pendingRecord } from './fixtures/records.js';

const WORKER = fileURLToPath(new URL('./fixtures/claim-worker.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const PROCESSES = 4;
const CLAIMS_EACH = 25;

interface WorkerReport {
  ok: number;
  alreadyResolved: number;
  other: string[];
  winner?: string;
}

interface Worker {
  ready: Promise<void>;
  report: Promise<WorkerReport>;
  go(): void;
}

function startWorker(url: string, namespace: string, requestId: string): Worker {
  const child = spawn(process.execPath, ['--import', 'tsx', WORKER, url, namespace, requestId, String(CLAIMS_EACH)], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  let markReady!: () => void;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  child.stdout.on('data', (c: Buffer) => {
    stdout += c.toString();
    if (stdout.startsWith('ready\n')) markReady();
  });
  const report = new Promise<WorkerReport>((resolve, reject) => {
    child.once('exit', (code) => {
      const line = stdout.split('\n').find((l) => l.startsWith('{'));
      if (code !== 0 || line === undefined) reject(new Error(`claim worker exited ${code}; stdout:\n${stdout}\nstderr:\n${stderr}`));
      else resolve(JSON.parse(line) as WorkerReport);
    });
  });
  // A worker that dies before "ready" must fail the test, not hang it.
  void report.catch(() => markReady());
  return { ready, report, go: () => child.stdin.write('go\n') };
}

async function race(url: string) {
  const namespace = `race${Date.now()}`;
  const store = await openStore(url, { namespace });
  const record = pendingRecord({ createdAt: Date.now(), expiresAt: Date.now() + 60_000 });
  await store.create(record);
  const workers = Array.from({ length: PROCESSES }, () => startWorker(url, namespace, record.requestId));
  await Promise.all(workers.map((w) => w.ready));
  for (const w of workers) w.go();
  const reports = await Promise.all(workers.map((w) => w.report));
  const stored = await store.get(record.requestId);
  await store.close();
  return { reports, stored };
}

function assertOneWinner({ reports, stored }: Awaited<ReturnType<typeof race>>) {
  assert.deepEqual(
    reports.flatMap((r) => r.other),
    [],
    'no claim failed or saw another outcome',
  );
  assert.equal(
    reports.reduce((n, r) => n + r.ok, 0),
    1,
    `exactly one ok across processes: ${JSON.stringify(reports)}`,
  );
  assert.equal(
    reports.reduce((n, r) => n + r.alreadyResolved, 0),
    PROCESSES * CLAIMS_EACH - 1,
  );
  const winner = reports.find((r) => r.ok === 1)?.winner;
  assert.equal(stored?.resolution?.answer.customInput, winner, "the stored answer is the winner's");
}

describe('claim across processes', () => {
  let dir: TempDir;
  let redis: RedisServer;
  let postgres: PostgresServer;
  before(async () => {
    dir = await makeTempDir('ask-user-race-');
    [redis, postgres] = await Promise.all([startRedisServer(), startPostgresServer()]);
  });
  after(async () => {
    await Promise.all([redis.stop(), postgres.stop()]);
    await dir.remove();
  });

  it(`gives one ok among ${PROCESSES} processes x ${CLAIMS_EACH} claims on one SQLite file`, async () => {
    assertOneWinner(await race(`sqlite://${dir.file('race.db')}`));
  });

  it(`gives one ok among ${PROCESSES} processes x ${CLAIMS_EACH} claims on one Redis`, async () => {
    assertOneWinner(await race(redis.url));
  });

  it(`gives one ok among ${PROCESSES} processes x ${CLAIMS_EACH} claims on one PostgreSQL`, async () => {
    assertOneWinner(await race(postgres.url));
  });
});
