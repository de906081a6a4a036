/**
 * Whether a second server on the same Redis adds throughput: questions/s of two demo processes sharing one
 * Redis vs one, at the same total concurrency. Two variants: each answer goes back to the instance that
 * asked, or to the other one (the run resumes from the store). On 2 cores the load generator, Redis and
 * the model take their share too, so the ceiling is well under 2×.
 */
import { CycleProcess } from './lib/cycle-process.js';
import { load } from './lib/cycle-client.js';
import { cpus } from 'node:os';
import { flushAll, redisCpuSeconds } from './lib/redis-server.js';
import { emptyFindings, one, rate, type CycleContext, type CycleFindings } from './lib/cycle-context.js';
import { ratio } from './lib/stats.js';

const CONCURRENCY = 10;

/** Busy CPU time of every core since boot, µs: the machine's neighbours included. */
const machineBusyUs = () => cpus().reduce((t, c) => t + (c.times.user + c.times.nice + c.times.sys + c.times.irq) * 1000, 0);
const TARGET = 1.6;

export async function measureInstances(ctx: CycleContext): Promise<CycleFindings> {
  const out = emptyFindings();
  if (!ctx.redis) {
    out.notes.push('two instances on one Redis: not measured (redis-server is not installed)');
    return out;
  }
  await flushAll(ctx.redis.port);
  const spec = `redis:${ctx.redis.url}`;
  const [a, b] = await Promise.all([
    CycleProcess.start('redis instance A', ['demo', spec, ctx.model.baseURL]),
    CycleProcess.start('redis instance B', ['demo', spec, ctx.model.baseURL]),
  ]);
  const routes = {
    one: one(a.port),
    same: (n: number) => (n % 2 ? { chat: b.port, continue: b.port } : { chat: a.port, continue: a.port }),
    cross: (n: number) => (n % 2 ? { chat: b.port, continue: a.port } : { chat: a.port, continue: b.port }),
  };
  const rates: Record<keyof typeof routes, number[]> = { one: [], same: [], cross: [] };
  const errors: string[] = [];
  const busy: string[] = [];
  try {
    await load({ route: routes.same, concurrency: CONCURRENCY, seconds: 1, maxCycles: 5_000, prefix: 'inst-warm' });
    // One instance before and after the two, so drift on a shared machine falls on both sides.
    for (const name of ['one', 'same', 'cross', 'one'] as const) {
      const before = await Promise.all([a.stats(), b.stats()]);
      const mine = process.cpuUsage();
      const redisBefore = await redisCpuSeconds(ctx.redis.port);
      const machineBefore = machineBusyUs();
      const r = await load({
        route: routes[name],
        concurrency: CONCURRENCY,
        seconds: ctx.seconds,
        maxCycles: 200_000,
        prefix: `inst-${name}-${rates[name].length}`,
      });
      const used = process.cpuUsage(mine);
      const machine = machineBusyUs() - machineBefore;
      const redisUs = ((await redisCpuSeconds(ctx.redis.port)) - redisBefore) * 1e6;
      const after = await Promise.all([a.stats(), b.stats()]);
      rates[name].push(r.cycles / r.seconds);
      if (r.errors) errors.push(`${name}: ${r.errors} failed (${r.firstError})`);
      // Where the two cores went: whether a second instance had any CPU left to use.
      const cores = (us: number) => (us / 1e6 / r.seconds).toFixed(2);
      busy.push(
        `${name}: instance A ${cores(after[0].cpuUs - before[0].cpuUs)}, B ${cores(after[1].cpuUs - before[1].cpuUs)}, load generator and model ${cores(used.user + used.system)}, Redis ${cores(redisUs)}, whole machine ${cores(machine)} cores busy`,
      );
    }
  } finally {
    await Promise.all([a.stop(), b.stop()]);
  }
  const mean = (values: number[]) => values.reduce((t, v) => t + v, 0) / values.length;
  const single = mean(rates.one);
  for (const [name, label] of [
    ['same', 'answer to the instance that asked'],
    ['cross', 'answer to the other instance'],
  ] as const) {
    const value = mean(rates[name]);
    out.rows.push({
      group: 'cycle',
      metric: `two instances on one Redis, ${label}`,
      value: rate(value),
      baseline: `${rate(single)} (one instance)`,
      ratio: ratio(value / single),
      target: `≥ ${TARGET}×`,
      met: value / single >= TARGET,
      raw: { cyclesPerSecond: value, oneInstance: single },
    });
  }
  out.notes.push(...errors, `two instances, CPU in use per variant (2 cores in all): ${busy.join('; ')}`);
  out.detail = { rates, busy };
  return out;
}
