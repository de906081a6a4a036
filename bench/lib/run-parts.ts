/**
 * The driver a benchmark made of parts shares (cycle.ts, follow.ts): an instant model, a Redis of its own
 * (when installed), a PostgreSQL and a Redis Cluster of its own when the benchmark asks for them
 * (`{ postgres: true, redisCluster: true }`, when installed) and a temp dir for every part, `--only a,b` to run some, one result part file, the
 * figures echoed. BENCH_CYCLE_SECONDS sets the load per slice, BENCH_OPEN the open questions.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startInstantModel, type InstantModelOptions } from './instant-model.js';
import { redisAvailable, startRedis } from './redis-server.js';
import { postgresMissing, startPostgres } from './postgres-server.js';
import { redisClusterAvailable, startRedisCluster } from './redis-cluster.js';
import { writePart } from './results.js';
import type { CycleContext, CycleFindings } from './cycle-context.js';

export type Part = (ctx: CycleContext) => Promise<CycleFindings>;

const positive = (raw: string | undefined, fallback: number) => (raw && Number(raw) > 0 ? Number(raw) : fallback);

/** Runs the wanted parts in order, writes the part file `name` and exits (kept-alive sockets must not hold the process). */
export async function runParts(
  name: string,
  parts: Record<string, Part>,
  model: InstantModelOptions = {},
  servers: { postgres?: boolean; redisCluster?: boolean } = {},
): Promise<never> {
  const onlyAt = process.argv.indexOf('--only');
  const wanted = onlyAt > 0 ? process.argv[onlyAt + 1]!.split(',') : Object.keys(parts);
  const started = performance.now();
  const tmp = mkdtempSync(join(tmpdir(), `bench-${name}-`));
  // Also when a signal ends the process through a handler that exits (lib/postgres-server.ts has one).
  const removeTmp = () => rmSync(tmp, { recursive: true, force: true });
  process.once('exit', removeTmp);
  const instant = await startInstantModel(model);
  const redis = redisAvailable() ? await startRedis() : undefined;
  const postgresWhyNot = servers.postgres ? postgresMissing() : undefined;
  const postgres = servers.postgres && !postgresWhyNot ? await startPostgres() : undefined;
  const clusterMissing = servers.redisCluster && !redisClusterAvailable();
  const redisCluster = servers.redisCluster && !clusterMissing ? await startRedisCluster() : undefined;
  const ctx: CycleContext = {
    model: instant,
    redis,
    postgres,
    redisCluster,
    tmp,
    seconds: positive(process.env.BENCH_CYCLE_SECONDS, 4),
    open: Math.floor(positive(process.env.BENCH_OPEN, 50_000)),
  };
  const rows: CycleFindings['rows'] = [];
  const notes: string[] = [];
  const tables: string[] = [];
  const detail: Record<string, unknown> = { open: ctx.open, seconds: ctx.seconds };
  if (!redis) notes.push('Redis skipped: redis-server is not installed (Debian: apt-get install -y redis-server).');
  if (postgresWhyNot) notes.push(`PostgreSQL skipped: ${postgresWhyNot}.`);
  if (clusterMissing)
    notes.push('Redis Cluster skipped: redis-server or redis-cli is not installed (Debian: apt-get install -y redis-server).');
  if (postgres) detail.postgres = { version: postgres.version, statementCounters: postgres.statements };
  try {
    for (const partName of wanted) {
      const part = parts[partName];
      if (!part) throw new Error(`unknown part ${partName}; use ${Object.keys(parts).join(',')}`);
      const t0 = performance.now();
      console.log(`== ${name}: ${partName}`);
      const found = await part(ctx);
      rows.push(...found.rows);
      notes.push(...found.notes);
      tables.push(...found.tables);
      detail[partName] = { ...found.detail, seconds: (performance.now() - t0) / 1000 };
    }
  } finally {
    await instant.close();
    await redis?.stop();
    await postgres?.stop();
    await redisCluster?.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
  writePart({ name, seconds: (performance.now() - started) / 1000, rows, notes, tables, detail });
  for (const r of rows)
    console.log(`${r.metric}: ${r.value}${r.baseline ? ` vs ${r.baseline}` : ''}${r.ratio ? ` = ${r.ratio}` : ''} (target ${r.target})`);
  for (const line of tables) console.log(line);
  for (const note of notes) console.log(`note: ${note}`);
  process.exit(0);
}
