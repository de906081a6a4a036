/**
 * Benchmark "sqlite-drivers" — the store's own work per question on node:sqlite vs the former sqlite3
 * backend, without HTTP (not a test): the store calls a question's cycle makes (create, run state written,
 * get, claim, ToolResult marked, run state moved on and dropped), 10 cycles at a time, on a file each.
 * The drivers alternate over several rounds in one process (two files, so the two SQLite libraries never
 * share one), and each round reports cycles/s and the process's CPU per cycle (all threads: sqlite3 works
 * on libuv's pool).
 * Run: `node --import tsx bench/sqlite-drivers.ts` (BENCH_DRIVER_ROUNDS, default 4; BENCH_DRIVER_CYCLES,
 * default 3000; BENCH_DRIVER_SYNC, `normal` or `full`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKeyedStore, type Backend, type PendingStore } from '../plugin/store/index.js';
import { openSqliteBackend } from '../plugin/store/sqlite-backend.js';
import { openSqlite3Backend } from '../plugin/store/sqlite3-backend.js';

const ROUNDS = Number(process.env.BENCH_DRIVER_ROUNDS ?? 4);
const CYCLES = Number(process.env.BENCH_DRIVER_CYCLES ?? 3000);
const SYNCHRONOUS = process.env.BENCH_DRIVER_SYNC === 'full' ? 'full' : 'normal';
const CONCURRENCY = 10;
const DRIVERS: Record<string, (file: string) => Promise<Backend>> = {
  'node:sqlite': (file) => openSqliteBackend(file, { timeoutMs: 1500, synchronous: SYNCHRONOUS }),
  sqlite3: (file) => openSqlite3Backend(file, { timeoutMs: 1500, synchronous: SYNCHRONOUS }),
};

async function oneCycle(store: PendingStore, id: string) {
  const now = Date.now();
  const form = { title: 'Which database?', mode: 'single' as const, options: [{ id: 'pg', label: 'PostgreSQL' }] };
  await store.create({
    requestId: id,
    toolCallId: `call_${id}`,
    sessionId: `s_${id}`,
    form,
    createdAt: now,
    expiresAt: now + 60_000,
    status: 'pending',
  });
  const version = await store.casState(`run:${id}`, { messages: ['a question'], requestId: id });
  await store.get(id);
  await store.claim(id, { status: 'answered', at: now, answer: { selections: ['pg'], customInput: '', cancelled: false } });
  await store.markToolResultWritten(id);
  const next = await store.casState(`run:${id}`, { messages: ['a question', 'pg'] }, { ifVersion: version! });
  await store.deleteState(`run:${id}`, next);
}

async function round(store: PendingStore, label: string) {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < CYCLES) await oneCycle(store, `${label}-${next++}`);
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  return { perSecond: CYCLES / seconds, cpuMs: (cpu.user + cpu.system) / 1000 / CYCLES };
}

const tmp = mkdtempSync(join(tmpdir(), 'bench-drivers-'));
const stores = new Map<string, PendingStore>();
for (const [name, open] of Object.entries(DRIVERS))
  stores.set(name, createKeyedStore(await open(join(tmp, `${name.replace(':', '-')}.db`))));
const results = new Map<string, Array<Awaited<ReturnType<typeof round>>>>();
try {
  for (let r = 0; r < ROUNDS; r++) {
    // A B, then B A: a neighbour's burst falls on both.
    const order = r % 2 === 0 ? [...stores.keys()] : [...stores.keys()].reverse();
    for (const name of order) {
      const result = await round(stores.get(name)!, `r${r}`);
      results.set(name, [...(results.get(name) ?? []), result]);
      console.log(`round ${r} ${name} (${SYNCHRONOUS}): ${Math.round(result.perSecond)} cycles/s, ${result.cpuMs.toFixed(3)} ms CPU/cycle`);
    }
  }
} finally {
  for (const store of stores.values()) await store.close();
  rmSync(tmp, { recursive: true, force: true });
}
const mean = (xs: number[]) => xs.reduce((t, x) => t + x, 0) / xs.length;
for (const [name, rs] of results) {
  console.log(
    `${name} (${SYNCHRONOUS}): mean ${Math.round(mean(rs.map((x) => x.perSecond)))} cycles/s, ${mean(rs.map((x) => x.cpuMs)).toFixed(3)} ms CPU/cycle`,
  );
}
