/**
 * Where interception's time goes (not a test, not part of the summary table): each step that
 * `coordinator.intercept` takes, timed alone in a tight loop on the memory store, next to the whole call.
 * Run when benchmark 1 misses its target: `node --import tsx bench/intercept-breakdown.ts [--rounds N]`.
 */
import { performance } from 'node:perf_hooks';
import { askUserArgsSchema, createAskUserKit, formatEvent, openStore, type InteractionRecord } from '../plugin/index.js';
import { newRequestId } from '../plugin/core/request-id.js';
import { parseAskUserArguments, userInputRequiredOf } from '../plugin/core/coordinator.js';
import { recordEntry } from '../plugin/core/audit.js';
import { type AskUserForm } from '../plugin/contract/schema.js';
import { withinBudget } from '../plugin/store/store-errors.js';
import { discardingAudit, QUESTION_ARGUMENTS } from './lib/bench-kit.js';
import { allowAnyCaller } from '../plugin/core/authorization.js';

const i = process.argv.indexOf('--rounds');
const ROUNDS = i > 0 ? Number(process.argv[i + 1]) : 20_000;

/** Mean µs per call of `fn` over ROUNDS calls, after ROUNDS/4 warm-up calls. */
async function time(fn: (n: number) => unknown): Promise<number> {
  const warm = Math.floor(ROUNDS / 4);
  for (let n = 0; n < warm; n++) await fn(-1 - n);
  const t0 = performance.now();
  for (let n = 0; n < ROUNDS; n++) await fn(n);
  return ((performance.now() - t0) * 1000) / ROUNDS;
}

const rows: Record<string, { 'µs/call': string }> = {};
const row = (name: string, us: number) => (rows[name] = { 'µs/call': us.toFixed(2) });

const form = parseAskUserArguments(QUESTION_ARGUMENTS);
if (!form.ok) throw new Error('the bench question does not parse');
const record = (n: number, store = 's'): InteractionRecord => {
  const createdAt = Date.now();
  return {
    requestId: newRequestId(),
    toolCallId: `call_${n}`,
    sessionId: `${store}-${n}`,
    form: form.form as AskUserForm,
    createdAt,
    expiresAt: createdAt + 1_800_000,
    status: 'pending',
  };
};
const sample = record(0);
const audit = discardingAudit();

row('JSON.parse(arguments)', await time(() => JSON.parse(QUESTION_ARGUMENTS)));
row('zod askUserArgsSchema.safeParse', await time(() => askUserArgsSchema.safeParse(JSON.parse(QUESTION_ARGUMENTS))));
row('parseAskUserArguments (both above)', await time(() => parseAskUserArguments(QUESTION_ARGUMENTS)));
row('newRequestId (pooled random bytes)', await time(() => newRequestId()));
row('userInputRequiredOf (toISOString)', await time(() => userInputRequiredOf(sample)));
row('formatEvent (JSON.stringify + CR/LF scrub)', await time(() => formatEvent('user_input_required', userInputRequiredOf(sample))));
row('audit recordEntry + JSON line', await time(() => audit.audit(recordEntry('asked', sample, Date.now()))));
row('setTimeout + unref + clear (expiry timer)', await time(() => clearTimeout(setTimeout(() => {}, 1_800_000).unref())));
row('withinBudget around a resolved promise', await time(() => withinBudget('bench', 1500, async () => undefined)));

const store = await openStore('memory');
row('store.currentOf (session without a question)', await time((n) => store.currentOf(`miss-${n}`)));
row('store.create', await time((n) => store.create(record(n, 'create'))));
row('store.currentOf (session with a question)', await time((n) => store.currentOf(`create-${Math.abs(n) % ROUNDS}`)));
await store.close();

const kit = createAskUserKit({ authorize: allowAnyCaller, logger: audit, heartbeatMs: 0 });
const call = (n: number) => [{ id: `call_${n}`, type: 'function', function: { name: 'ask_user', arguments: QUESTION_ARGUMENTS } }];
row('kit.intercept, whole call (no stream)', await time((n) => kit.intercept(call(n), { sessionId: `kit-${n}` })));
const bare = createAskUserKit({ authorize: allowAnyCaller, logger: audit, heartbeatMs: 0, expiryTimers: false });
row('  same, expiryTimers: false', await time((n) => bare.intercept(call(n), { sessionId: `bare-${n}` })));
await kit.close();
await bare.close();

console.log(`interception breakdown, mean of ${ROUNDS} calls each (memory store):`);
console.table(rows);
