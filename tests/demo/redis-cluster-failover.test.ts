/**
 * A Redis Cluster master fails over in the middle of a run, over HTTP on the demo (contract §14): a demo
 * server process on `ASK_USER_STORE=redis+cluster://…` asks, the answer is acknowledged with 200, then the
 * master of the session's slot is killed (SIGKILL) while the model is still thinking. While the slot has no
 * master the routes answer 503 `store_unavailable` quickly; once a replica took over they answer again by
 * themselves. The promoted master has no replica left (its only one was the killed master), so writes wait
 * for none: the run ends on it with the ToolResult sent once, and a second answer is 409. Once a replica
 * joins it, writes wait for that replica again. A master that hangs instead (SIGSTOP) is refused within
 * the store's budget as well, and the routes come back on its promoted replica while it stays frozen.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { createParser } from 'eventsource-parser';
import { sessionSlotTag } from '../../plugin/store/session-slot.js';
import { startDemoServer, type DemoServer } from '../helpers/demo-server.js';
import { freePort, isFree } from '../helpers/free-port.js';
import { startRedisCluster, type RedisCluster } from '../helpers/redis-cluster.js';
import { spawnRedisServer } from '../helpers/redis-server.js';
import { startScriptedModel } from '../helpers/scripted-model.js';
import { makeTempDir, type TempDir } from '../helpers/temp-dir.js';
import { askSingle } from './harness.js';
import { answerBody, first, postStream, shape, text, type SseEvent, type StreamResult } from './sse-client.js';

/** How long a refusal may take while the store is down: the store's 1.5 s budget, with room for a busy machine. */
const REFUSED_WITHIN_MS = 3000;
/** How long a failover and the routes' return may take. */
const BACK_WITHIN_MS = 30_000;
/** How long the routes may take to come back once the other nodes see a replica serve the slot. */
const BACK_AFTER_PROMOTION_MS = 10_000;

const execFileAsync = promisify(execFile);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A POSTed stream read as it arrives: its status once the headers came, and the whole stream once it ends. */
async function openStream(url: string, body: unknown): Promise<{ status: number; events: SseEvent[]; ended: Promise<StreamResult> }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const contentType = res.headers.get('content-type') ?? '';
  const events: SseEvent[] = [];
  const parser = createParser({ onEvent: (e) => events.push({ event: e.event ?? 'message', data: JSON.parse(e.data) }) });
  const ended = (async (): Promise<StreamResult> => {
    let raw = '';
    const decoder = new TextDecoder();
    for await (const chunk of res.body!) {
      const piece = decoder.decode(chunk as Uint8Array, { stream: true });
      raw += piece;
      parser.feed(piece);
    }
    return { status: res.status, contentType, events, raw };
  })();
  return { status: res.status, events, ended };
}

/** One GET and how it went: its status, error code, and how long the answer took. */
async function probe(url: string): Promise<{ status: number; code?: string; ms: number }> {
  const started = Date.now();
  const res = await fetch(url);
  const body = (await res.json().catch(() => undefined)) as { error?: { code?: string } } | undefined;
  return { status: res.status, ...(body?.error?.code ? { code: body.error.code } : {}), ms: Date.now() - started };
}

/** A new node on a free loopback port whose cluster bus port (+10000) is free too, in a dir of its own. */
async function startNode(): Promise<{ port: number; child: ChildProcess; dir: TempDir }> {
  const dir = await makeTempDir('ask-user-cluster-replica-');
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    if (port >= 55_000 || !(await isFree(port + 10_000))) continue;
    const args = [
      ...['--port', String(port), '--bind', '127.0.0.1', '--dir', dir.path, '--cluster-enabled', 'yes'],
      ...['--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', '1000', '--save', '', '--appendonly', 'no'],
    ];
    try {
      return { port, child: await spawnRedisServer(port, args, 'redis-server (new cluster node)'), dir };
    } catch (error) {
      // Another process took the port meanwhile: try another one.
      if (attempt >= 3 || !/Address already in use/.test(String(error))) throw error;
    }
  }
}

/**
 * A replacement for the killed node joins as the promoted master's replica, as an operator adds one (or a
 * supervisor restarts the node). Resolves once that master has it as an online replica.
 */
async function addReplica(cluster: RedisCluster, master: number): Promise<{ port: number; child: ChildProcess; dir: TempDir }> {
  const node = await startNode();
  try {
    const masterId = await cluster.cli(master, 'CLUSTER', 'MYID');
    await execFileAsync(
      'redis-cli',
      ['--cluster', 'add-node', `127.0.0.1:${node.port}`, `127.0.0.1:${master}`, '--cluster-slave', '--cluster-master-id', masterId],
      { timeout: 30_000 },
    );
    const end = Date.now() + 30_000;
    for (;;) {
      const replication = await cluster.cli(master, 'INFO', 'replication').catch(() => '');
      if (new RegExp(`slave\\d+:ip=127\\.0\\.0\\.1,port=${node.port},state=online`).test(replication)) return node;
      if (Date.now() > end) throw new Error(`node ${node.port} did not become an online replica of ${master}:\n${replication}`);
      await sleep(100);
    }
  } catch (error) {
    node.child.kill('SIGKILL');
    await node.dir.remove();
    throw error;
  }
}

/** SIGTERM, or SIGKILL when the process is still there after a while (it then failed to exit by itself). */
async function stopDemo(demo: DemoServer): Promise<boolean> {
  let exited = false;
  await Promise.race([demo.stop().then(() => (exited = true)), sleep(10_000)]);
  if (!exited) await demo.kill();
  return exited;
}

let cluster: RedisCluster;
before(async () => {
  cluster = await startRedisCluster();
});
after(() => cluster?.stop());

/** Stops what a test started, latest first, whatever happened (node runs a test's own hooks first to last). */
function stopsAfter(t: { after(fn: () => Promise<void>): void }): Array<() => Promise<unknown>> {
  const stops: Array<() => Promise<unknown>> = [];
  t.after(async () => {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  });
  return stops;
}

test('a master fails over mid-run: 503 store_unavailable while its slot has none, then, a replica added to the promoted master, the run ends on it, the ToolResult sent once, a second answer 409', async (t) => {
  const stops = stopsAfter(t);
  let think!: () => void;
  const thinking = new Promise<void>((resolve) => (think = resolve));
  const model = await startScriptedModel({
    turns: [
      { text: 'Asking first.', toolCalls: [askSingle('call_failover')] },
      // The model thinks until the failover is over: the run is in flight while the slot has no master.
      { text: 'Finished after the failover.', hold: thinking },
    ],
  });
  stops.push(async () => {
    think();
    await model.close();
  });
  const demo = await startDemoServer({
    env: { OPENAI_BASE_URL: model.baseURL, OPENAI_MODEL: 'scripted-test', ASK_USER_STORE: cluster.url },
  });
  const stopDemoOnce = () => stopDemo(demo);
  stops.push(stopDemoOnce);
  const health = (await (await fetch(`${demo.url}/api/health`)).json()) as { store?: string };
  assert.equal(health.store, 'redis-cluster');

  const sessionId = 'failover-over-http';
  const pendingUrl = `${demo.url}/api/interactions/pending?sessionId=${sessionId}`;
  const chat = await postStream(`${demo.url}/api/chat`, { sessionId, message: 'start the task' });
  const ask = first(chat, 'user_input_required');
  assert.ok(ask, `no user_input_required: ${chat.raw}`);

  // The answer is acknowledged (200), and the model got the ToolResult: the run is in flight.
  const cont = await openStream(`${demo.url}/api/chat/continue`, answerBody(sessionId, ask.id, ['implement']));
  assert.equal(cont.status, 200);
  await model.waitForRequests(2);

  const slot = await cluster.keySlot(`{${sessionSlotTag(sessionId)}}`);
  const old = await cluster.masterOf(slot);
  let promoted: number | undefined;
  const failover = cluster.failMasterOf(slot).then((port) => (promoted = port));
  // Ask the session's slot again and again while it fails over, one request at a time.
  const during: Array<Awaited<ReturnType<typeof probe>>> = [];
  while (promoted === undefined) {
    during.push(await probe(pendingUrl));
    await Promise.race([failover, sleep(100)]);
  }
  await failover;
  assert.notEqual(promoted, old, 'a replica serves the slot now');

  const refused = during.filter((p) => p.status === 503);
  assert.ok(refused.length > 0, `no request was refused while the slot had no master: ${JSON.stringify(during)}`);
  for (const p of during) {
    assert.ok(p.status === 200 || (p.status === 503 && p.code === 'store_unavailable'), `during the failover: ${JSON.stringify(p)}`);
    if (p.status === 503) assert.ok(p.ms < REFUSED_WITHIN_MS, `a refusal took ${p.ms} ms`);
  }

  // The routes come back by themselves: same process, no restart.
  const end = Date.now() + BACK_WITHIN_MS;
  let back = await probe(pendingUrl);
  while (back.status !== 200 && Date.now() < end) {
    await sleep(100);
    back = await probe(pendingUrl);
  }
  assert.equal(back.status, 200, `the routes did not come back within ${BACK_WITHIN_MS} ms: ${JSON.stringify(back)}`);

  // The model answers now: the run goes on to its end on the promoted master, which has no replica yet
  // (its only one was the killed master): writes wait for the replicas it has, none.
  think();
  const ended = await cont.ended;
  assert.deepEqual(shape(ended), ['interaction_resolved', 'tool_result', 'message_delta', 'done'], ended.raw);
  assert.equal(text(ended), 'Finished after the failover.');
  assert.equal(model.requests.length, 2, 'the model was called other than for the ask and the one continue');
  const [asked, resumed] = model.requests;
  assert.deepEqual(resumed!.messages.slice(0, asked!.messages.length), asked!.messages, 'the continue resumed the asked history');
  const results = resumed!.messages.filter((m) => m.role === 'tool' && m.tool_call_id === 'call_failover');
  assert.deepEqual(results, [
    { role: 'tool', tool_call_id: 'call_failover', content: '{"selections":["implement"],"customInput":"","cancelled":false}' },
  ]);

  // The run's end is on the promoted master: the session's history as a reload reads it.
  const view = await (await fetch(`${demo.url}/api/session?sessionId=${sessionId}`)).json();
  assert.equal(view.items.at(-1).text, 'Finished after the failover.');
  assert.equal(view.status, 'idle');
  // The card's closing time, kept in the session's slot, survived the failover: a reload redraws the receipt with it.
  const closed = view.items.find((i: { toolCallId?: string }) => i.toolCallId === 'call_failover');
  assert.ok(closed && !Number.isNaN(Date.parse(closed.at)), `no closing time on ${JSON.stringify(closed)}`);

  // A second answer for the same question is refused: it was consumed once, across the failover.
  const again = await postStream(`${demo.url}/api/chat/continue`, answerBody(sessionId, ask.id, ['safe']));
  assert.equal(again.status, 409, again.raw);
  assert.equal(again.json.error.code, 'already_answered');
  assert.equal(model.requests.length, 2, 'the second answer reached the model');
  assert.equal(await waitCalls(cluster, promoted!), 0, 'no write waited for a replica the promoted master does not have');

  // A replica joins the promoted master (as an operator adds one): the writes wait for it again.
  const replica = await addReplica(cluster, promoted!);
  stops.push(async () => {
    replica.child.kill('SIGKILL');
    await replica.dir.remove();
  });
  const endWaits = Date.now() + BACK_WITHIN_MS;
  for (let i = 0; (await waitCalls(cluster, promoted!)) === 0; i++) {
    assert.ok(Date.now() < endWaits, 'the writes never waited for the replica that joined');
    // A new chat whose writes go to the promoted master.
    const next = await postStream(`${demo.url}/api/chat`, {
      sessionId: await sessionOn(cluster, promoted!, `after-${i}`),
      message: 'go on',
    });
    assert.equal(next.status, 200, next.raw);
    await sleep(300);
  }

  t.diagnostic(
    `failover of slot ${slot}: ${old} -> ${promoted}; probes ${during.map((p) => `${p.status}/${p.ms}ms`).join(' ')}; back after it in ${back.ms} ms`,
  );
  // The server ends on SIGTERM by itself (a client left open would keep it alive).
  stops.splice(stops.indexOf(stopDemoOnce), 1);
  assert.ok(await stopDemo(demo), 'the demo server did not exit within 10 s of SIGTERM');
});

/** A new session id whose slot the master on `port` serves (a third of the slots each). */
async function sessionOn(cluster: RedisCluster, port: number, name: string): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const sessionId = `${name}-${i}`;
    if ((await cluster.masterOf(await cluster.keySlot(`{${sessionSlotTag(sessionId)}}`))) === port) return sessionId;
  }
  throw new Error(`no session found on the master at ${port}`);
}

/** How many WAITs the node on `port` ran: a write acknowledged only once a replica has it. */
async function waitCalls(cluster: RedisCluster, port: number): Promise<number> {
  return Number(/cmdstat_wait:calls=(\d+)/.exec(await cluster.cli(port, 'INFO', 'commandstats'))?.[1] ?? 0);
}

/** The master serving `slot` as the node on `port` sees it. */
async function slotMasterSeenBy(port: number, slot: number): Promise<number | undefined> {
  const ranges = JSON.parse(await cluster.cli(port, '--json', 'CLUSTER', 'SLOTS').catch(() => '[]')) as Array<
    [number, number, [string, number]]
  >;
  return ranges.find(([start, end]) => start <= slot && slot <= end)?.[2][1];
}

test('a frozen master (SIGSTOP): 503 store_unavailable within the budget, and the routes come back once its replica took over while it stays frozen', async (t) => {
  const stops = stopsAfter(t);
  const model = await startScriptedModel({ turns: [{ text: 'Asking.', toolCalls: [askSingle('call_frozen')] }] });
  stops.push(() => model.close());
  const demo = await startDemoServer({
    env: { OPENAI_BASE_URL: model.baseURL, OPENAI_MODEL: 'scripted-test', ASK_USER_STORE: cluster.url },
  });
  stops.push(() => stopDemo(demo));

  // A session whose master has an online replica to take over from it.
  let sessionId = '';
  let slot = 0;
  let master = 0;
  for (let i = 0; !sessionId; i++) {
    assert.ok(i < 20, 'no session found on a master with an online replica');
    const candidate = `frozen-master-${i}`;
    slot = await cluster.keySlot(`{${sessionSlotTag(candidate)}}`);
    master = await cluster.masterOf(slot);
    if (/slave\d+:.*state=online/.test(await cluster.cli(master, 'INFO', 'replication'))) sessionId = candidate;
  }
  const chat = await postStream(`${demo.url}/api/chat`, { sessionId, message: 'start the task' });
  const ask = first(chat, 'user_input_required');
  assert.ok(ask, `no user_input_required: ${chat.raw}`);
  const pendingUrl = `${demo.url}/api/interactions/pending?sessionId=${sessionId}`;

  const frozen = cluster.nodes.find((n) => n.port === master)!;
  const witness = (await cluster.masters()).find((p) => p !== master)!;
  frozen.child.kill('SIGSTOP');
  // Thawed at the end, it wakes to find its replica took over and follows it.
  stops.push(async () => void frozen.child.kill('SIGCONT'));

  // Until a replica serves the slot, every answer is a refusal within the store's budget.
  const during: Array<Awaited<ReturnType<typeof probe>>> = [];
  const end = Date.now() + BACK_WITHIN_MS;
  while ((await slotMasterSeenBy(witness, slot)) === master) {
    assert.ok(Date.now() < end, 'no replica took over from the frozen master');
    during.push(await probe(pendingUrl));
  }
  assert.ok(during.length > 0, 'the replica took over before any request was made');
  for (const p of during) {
    assert.ok(p.status === 503 && p.code === 'store_unavailable', `while frozen: ${JSON.stringify(p)}`);
    assert.ok(p.ms < REFUSED_WITHIN_MS, `a refusal took ${p.ms} ms`);
  }

  // The old master stays frozen: the routes come back on the promoted replica by themselves.
  const backBy = Date.now() + BACK_AFTER_PROMOTION_MS;
  let back = await probe(pendingUrl);
  while (back.status !== 200 && Date.now() < backBy) back = await probe(pendingUrl);
  assert.equal(back.status, 200, `the routes did not come back while the old master stayed frozen: ${JSON.stringify(back)}`);
  const pending = (await (await fetch(pendingUrl)).json()) as { pending?: { id?: string } };
  assert.equal(pending.pending?.id, ask.id, 'the acknowledged question is on the promoted replica');
});
