/**
 * Reads a V8 .cpuprofile and says where the time went (not a test): self time grouped by source (each
 * plugin file on its own line; node internals, koa, zod, GC and idle as buckets), then the top functions.
 * Run: `node --import tsx bench/profile-summary.ts <file.cpuprofile> [top]`.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export function bucketOf(node: ProfileNode): string {
  const { url, functionName } = node.callFrame;
  if (!url) {
    if (functionName === '(idle)' || functionName === '(garbage collector)' || functionName === '(program)') return functionName;
    // Natives with no script: syscalls (writev, writeUtf8String) and builtins.
    return `native: ${functionName || '(anonymous)'}`;
  }
  const local = url.match(/\/work\/[^/]+\/((?:plugin|widget|bench)\/.+)$/);
  if (local) return local[1]!;
  const pkg = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
  if (pkg) return `package: ${pkg[1]}`;
  if (url.startsWith('node:')) return `node: ${url.slice(5).split('/').slice(0, 2).join('/')}`;
  return url;
}

export function summarizeProfile(profile: Profile, top = 25) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const buckets = new Map<string, number>();
  const functions = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    const node = byId.get(id)!;
    total += dt;
    const bucket = bucketOf(node);
    buckets.set(bucket, (buckets.get(bucket) ?? 0) + dt);
    const fn = `${node.callFrame.functionName || '(anonymous)'} — ${bucket}:${node.callFrame.lineNumber + 1}`;
    functions.set(fn, (functions.get(fn) ?? 0) + dt);
  });
  const rank = (m: Map<string, number>) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => ({ name, ms: +(us / 1000).toFixed(1), share: `${((100 * us) / total).toFixed(1)}%` }));
  return { totalMs: total / 1000, buckets: rank(buckets), functions: rank(functions) };
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  const [file, top = '25'] = process.argv.slice(2);
  if (!file) throw new Error('usage: node --import tsx bench/profile-summary.ts <file.cpuprofile> [top]');
  const summary = summarizeProfile(JSON.parse(readFileSync(file, 'utf8')) as Profile, Number(top));
  console.log(`${file}: ${summary.totalMs.toFixed(0)} ms sampled`);
  console.table(summary.buckets);
  console.table(summary.functions);
}
