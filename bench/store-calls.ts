/**
 * Where a store call's time goes on Redis, PostgreSQL and Redis Cluster (not a test, not part of the summary table):
 * the backends alone, in this process, with no HTTP, model or loop around them. Each "cycle" is five calls
 * on a fresh key, the kinds a question makes: a create (swap on absent), a read, a compare-and-set on the
 * state row's version, one on the raw value, a delete (swap to null); values of about 1 KB shaped like a
 * state row. 10 cycles at a time (`--concurrency`) for a slice, the backends alternated (in order, then in
 * reverse): calls/s, this process's CPU per call (the client library and the plugin's backend code) and the
 * database server's CPU per call (redis-server's INFO cpu; PostgreSQL's postmaster and every backend, from
 * /proc; the cluster's six nodes' INFO cpu). The cluster's writes wait for one replica, the kit's default.
 * Run: `node bench/results/build/bench/store-calls.js [--seconds 4] [--rounds 2] [--concurrency 10]` after the
 * suite's `tsc` step.
 */
import { createMemoryBackend, type Backend } from '../plugin/store/index.js';
import { openRedisBackend } from '../plugin/store/redis-backend.js';
import { openPostgresBackend } from '../plugin/store/postgres-backend.js';
import { openRedisClusterBackend } from '../plugin/store/redis-cluster-backend.js';
import { parseStoreUrl } from '../plugin/store/store-url.js';
import { STATE_HEAD } from '../plugin/store/backend.js';
import { redisAvailable, redisCpuSeconds, startRedis } from './lib/redis-server.js';
import { postgresMissing, startPostgres } from './lib/postgres-server.js';
import { redisClusterAvailable, startRedisCluster } from './lib/redis-cluster.js';

const arg = (name: string, fallback: number) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const SECONDS = arg('--seconds', 4);
const ROUNDS = arg('--rounds', 2);
const CONCURRENCY = arg('--concurrency', 10);
const CALLS_PER_CYCLE = 5;

const why = redisAvailable() && redisClusterAvailable() ? postgresMissing() : 'redis-server or redis-cli is not installed';
if (why) {
  console.error(`store-calls: ${why}`);
  process.exit(1);
}
const redis = await startRedis();
const postgres = await startPostgres();
const cluster = await startRedisCluster();
const clusterTarget = parseStoreUrl(cluster.url);
if (clusterTarget.kind !== 'redis-cluster') throw new Error(`not a cluster URL: ${cluster.url}`);
const backends: Record<string, { backend: Backend; serverCpu: () => Promise<number> }> = {
  memory: { backend: createMemoryBackend(), serverCpu: async () => 0 },
  redis: {
    backend: await openRedisBackend({ url: redis.url, label: 'bench redis' }, { timeoutMs: 1500 }),
    serverCpu: () => redisCpuSeconds(redis.port),
  },
  postgres: {
    backend: await openPostgresBackend({ url: postgres.url(), label: 'bench postgres' }, { timeoutMs: 1500 }),
    serverCpu: async () => postgres.cpuSeconds(),
  },
  'redis-cluster': {
    backend: await openRedisClusterBackend(clusterTarget, { timeoutMs: 1500, waitReplicas: 1 }),
    serverCpu: () => cluster.cpuSeconds(),
  },
};

const filler = 'x'.repeat(900);
const stateRow = (version: string) => `${STATE_HEAD}${version}","value":{"text":"${filler}"}}}`;

async function cycle(backend: Backend, key: string): Promise<void> {
  const deadline = () => Date.now() + 1500;
  const [v1, v2] = [stateRow('1'), stateRow('2')];
  const ok = [
    await backend.swap({ key, expect: { kind: 'absent' }, next: v1, ttlMs: 60_000, deadline: deadline() }),
    (await backend.read(key)) === v1,
    await backend.swap({
      key,
      expect: { kind: 'version', version: '1', liveAt: Date.now() },
      next: v2,
      ttlMs: 60_000,
      deadline: deadline(),
    }),
    await backend.swap({ key, expect: { kind: 'raw', raw: v2 }, next: v1, ttlMs: 60_000, deadline: deadline() }),
    await backend.swap({ key, expect: { kind: 'any' }, next: null, deadline: deadline() }),
  ];
  if (ok.includes(false)) throw new Error(`a call of the cycle on ${key} did not do what it should: ${ok.join(', ')}`);
}

let serial = 0;
async function slice(name: string, seconds: number) {
  const { backend, serverCpu } = backends[name]!;
  const until = performance.now() + seconds * 1000;
  let cycles = 0;
  const cpu0 = process.cpuUsage();
  const server0 = await serverCpu();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < until) {
        await cycle(backend, `bench:calls:${serial++}`);
        cycles++;
      }
    }),
  );
  const wall = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const calls = cycles * CALLS_PER_CYCLE;
  return { calls, wall, clientUs: (cpu.user + cpu.system) / calls, serverUs: (((await serverCpu()) - server0) * 1e6) / calls };
}

const totals: Record<string, { calls: number; wall: number; clientUs: number; serverUs: number }> = {};
for (const name of Object.keys(backends)) {
  await slice(name, 1); // warm-up
  totals[name] = { calls: 0, wall: 0, clientUs: 0, serverUs: 0 };
}
for (let round = 0; round < ROUNDS; round++) {
  const names = Object.keys(backends);
  const order = round % 2 === 0 ? names : [...names].reverse();
  for (const name of order) {
    const s = await slice(name, SECONDS);
    const t = totals[name]!;
    t.clientUs += s.clientUs * s.calls;
    t.serverUs += s.serverUs * s.calls;
    t.calls += s.calls;
    t.wall += s.wall;
  }
}
const table: Record<string, Record<string, string>> = {};
for (const [name, t] of Object.entries(totals)) {
  table[name] = {
    'calls/s': (t.calls / t.wall).toFixed(0),
    'this process µs/call': (t.clientUs / t.calls).toFixed(1),
    'database server µs/call': name === 'memory' ? '—' : (t.serverUs / t.calls).toFixed(1),
  };
}
console.table(table);
for (const { backend } of Object.values(backends)) await backend.close();
await redis.stop();
await postgres.stop();
await cluster.stop();
process.exit(0);
