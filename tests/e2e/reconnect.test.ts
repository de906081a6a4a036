/**
 * docs/protocol.md §11 ("runs outlive the connection") in Chromium: the real demo server and page, a scripted
 * model, and a loopback proxy of the test's own between them. Each scenario cuts the page off at another moment
 * of a run (before the card, while it is open, mid-text, mid-continue, the server side dropping the socket, a
 * reload) and proves the page ends as an uninterrupted run does: the same transcript, one card, one receipt,
 * every frame once, one answer in the audit and one ToolResult at the model. Then the stop button, a card
 * asked while the page was cut off, a reload during the continue, and the stream reader's loading.
 *
 * Offline alone does not break a response in flight in this Chromium (it only fails new requests), so a
 * network cut is `setOffline(true)` plus the proxy dropping the live sockets, as a real outage does both.
 *
 * One demo server serves every scenario: starting one takes seconds on a busy machine, and a scenario needs
 * only a session of its own. Each has its own page (context, session), proxy and model script, picked by its
 * message; the evidence is one folder, `.evidence/e2e/reconnect/`: notes and screenshots by scenario, wire files
 * `page<N>-…` in the scenarios' order.
 */
import { after, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { BrowserContext, Page } from 'playwright-core';
import { closeSuiteBrowser, runCase, type Case } from './helpers/acceptance-case.js';
import { option, receipt, SEL, type ChatPage } from './helpers/demo-page.js';
import type { DemoProcess } from './helpers/demo-process.js';
import { answerContent, assertToolResultSent } from './helpers/model-evidence.js';
import { waitForAudit } from './helpers/streams.js';
import { APPROACH, lastToolContent } from './helpers/turns.js';
import { startTcpProxy, type TcpProxy } from './helpers/tcp-proxy.js';
import { assertEachFrameOnce, framesOf, transcriptOf, type Frame } from './helpers/frames.js';
import type { TappedExchange, WireTap } from './helpers/wire-tap.js';
import type { ChatRequestBody, ScriptedModel, ScriptedTurn, TurnScript } from '../helpers/scripted-model.js';

after(closeSuiteBrowser);

const CALL = 'call_e2e_reconnect';
const OPENING =
  '我先把仓库读一遍：入口在 demo 目录，组件在 widget 目录，服务端在 plugin 目录，测试分为单元、端到端和加固三层。读完之后，我会先列出要改的文件，再决定从哪里动手。';
const TAIL = '接下来我按风险从低到高逐个处理，每一步都先跑相关的测试，确认无误再继续下一步。';
const ANSWER = answerContent(['implement'], '');
const ECHO = `模型收到：${ANSWER}。${TAIL}`;
const SUITES_TEXT = '我先看看有哪些测试套件。';
const ASK_TEXT = '好，有一件事要你定。';

/** Pacing changes when text arrives, never what it says: a scenario slows only the text it cuts into. */
type Pace = { chunkSize: number; pieceDelayMs: number };
const FAST: Pace = { chunkSize: 7, pieceDelayMs: 0 };
// About 3 s of text: a cut right after its first piece lands mid-text even when this machine is slow.
const SLOW: Pace = { chunkSize: 3, pieceDelayMs: 100 };

const askCall = { id: CALL, name: 'ask_user', arguments: APPROACH as unknown as Record<string, unknown> };
/** Text, then the question, in one model turn. */
const textThenAsk = (pace: Pace): ScriptedTurn => ({ text: OPENING, ...pace, toolCalls: [askCall] });
/** The model's reply to the answer: what it received, then more text. */
const echoAnswer =
  (pace: Pace): TurnScript =>
  (body) => ({ text: `模型收到：${lastToolContent(body)}。${TAIL}`, ...pace });
/** A round with an ordinary tool first, then the question in a round of its own, held until `gate` settles. */
const toolThenHeldAsk = (gate: Promise<unknown>): TurnScript[] => [
  { text: SUITES_TEXT, toolCalls: [{ id: 'call_e2e_suites', name: 'list_test_suites', arguments: {} }] },
  () => ({ text: ASK_TEXT, toolCalls: [askCall], hold: gate }),
];

// What an uninterrupted run draws (the first scenarios show it does); the receipt's time is left out.
const RECEIPT = 'card-item: 请选择执行方式 | 已提交 | 选择 直接实现 | 已继续，任务完成';
const expected = (message: string) => [`user-text: ${message}`, `assistant-text: ${OPENING}`, RECEIPT, `assistant-text: ${ECHO}`];
const expectedWithTool = (message: string) => [
  `user-text: ${message}`,
  `assistant-text: ${SUITES_TEXT}`,
  'tool-text: 工具 list_test_suites',
  `assistant-text: ${ASK_TEXT}`,
  RECEIPT,
  `assistant-text: ${ECHO}`,
];

const RECONNECTING = '连接中断，正在重新连接…';
const CONNECTION = '[data-testid="connection-status"]';
// Generous: the machine running this is shared and often busy.
const WAIT = 30_000;

/** The model's scripts by the message that opens a session: scenarios share one model and never each other's turns. */
const scripts = new Map<string, TurnScript[]>();
const firstUserText = (body: ChatRequestBody): unknown => body.messages.find((m) => m.role === 'user')?.content;
const dispatch: TurnScript = (body) => {
  const next = scripts.get(String(firstUserText(body)))?.shift();
  if (!next) return { text: '(e2e: no scripted turn left for this scenario)' };
  return typeof next === 'function' ? next(body) : next;
};

interface Scenario {
  c: Case;
  /** The scenario's name, for its notes and screenshots. */
  tag: string;
  /** The first message, which names the scenario's script. */
  message: string;
  sessionId: string;
  chat: ChatPage;
  tap: WireTap;
  context: BrowserContext;
  proxy: TcpProxy;
  /** The `Last-Event-ID` of each `GET /api/chat/stream` the page sent, in order (null: none). */
  pickUps: Array<string | null>;
}

/** The model as one scenario saw it: the requests of its session only. */
const modelOf = (s: Scenario) => ({ requests: s.c.model.requests.filter((b) => firstUserText(b) === s.message) }) as ScriptedModel;

/**
 * A scenario on the shared server: its own proxy and page (the page reaches the server only through the proxy,
 * so the test can cut it), its script under a message of its own, its notes and final screenshot by `tag`.
 */
async function scenario(c: Case, tag: string, turns: TurnScript[], body: (s: Scenario) => Promise<void>) {
  const message = `帮我整理一下这个仓库（${tag}）`;
  scripts.set(message, [...turns]);
  const proxy = await startTcpProxy(c.server.port);
  // Requests the browser saw fail (a cut makes some on purpose): kept as evidence.
  const failed: string[] = [];
  const pickUps: Array<string | null> = [];
  let opened: { chat: ChatPage; context: BrowserContext } | undefined;
  try {
    const { chat, tap, context } = (opened = await c.openPage({ ...c.server, url: proxy.url } as DemoProcess));
    context.on('requestfailed', (request) =>
      failed.push(`${request.method()} ${new URL(request.url()).pathname}: ${request.failure()?.errorText ?? '?'}`),
    );
    context.on('request', (request) => {
      if (new URL(request.url()).pathname === '/api/chat/stream') pickUps.push(request.headers()['last-event-id'] ?? null);
    });
    await chat.open();
    const sessionId = (await chat.page.textContent('[data-testid="session-id"]')) ?? '';
    c.note(`${tag}.sessionId`, sessionId);
    await body({ c, tag, message, sessionId, chat, tap, context, proxy, pickUps });
  } catch (error) {
    c.note(`${tag}.failure`, String((error as Error).stack ?? error));
    throw error;
  } finally {
    c.note(`${tag}.proxy`, { accepted: proxy.accepted, dropped: proxy.dropped });
    c.note(`${tag}.failedRequests`, failed);
    if (opened) await c.evidence.screenshot(opened.chat.page, `${tag}-final`).catch(() => {});
    // Closed now: a page left reconnecting would knock on a closed proxy through the scenarios after it.
    await opened?.context.close().catch(() => {});
    await proxy.close();
  }
}

/** The browser loses the network: new requests fail, and the sockets it had die with it. */
async function cutNetwork(s: Scenario) {
  await s.context.setOffline(true);
  // Offline leaves a response in flight streaming in Chromium; a real outage takes the socket too.
  assert.ok(s.proxy.dropAll() > 0, 'the page had no live connection to cut');
}

const broken = (x: TappedExchange) => x.failed !== undefined || (x.end?.startsWith('error') ?? false);

/** Resolves with the page's `method path` exchange once its body broke off. */
const waitBroken = (tap: WireTap, path: string, method: string) => tap.waitFor(path, (x) => x.method === method && broken(x), WAIT);

const waitReconnecting = (page: Page) => page.locator(CONNECTION, { hasText: RECONNECTING }).waitFor({ timeout: WAIT });
const waitConnected = (page: Page) =>
  page.waitForFunction((sel) => document.querySelector(sel)?.textContent === '', CONNECTION, { timeout: WAIT });
const waitRunStatus = (page: Page, status: string) =>
  page.locator(SEL.runStatus, { hasText: new RegExp(`^${status}$`) }).waitFor({ timeout: WAIT });

/** Waits until an assistant bubble on the page begins with `prefix`. */
const waitForText = (page: Page, prefix: string) =>
  page.waitForFunction(
    (prefix) => [...document.querySelectorAll('[data-testid="assistant-text"]')].some((el) => (el.textContent ?? '').startsWith(prefix)),
    prefix,
    { timeout: WAIT },
  );

/** Waits until the page has loaded the widget's stream reader, a chunk it loads on its first stream. */
const readerLoaded = (page: Page) =>
  page.waitForFunction(() => performance.getEntriesByType('resource').some((e) => e.name.includes('/assets/sse-stream-')), undefined, {
    timeout: WAIT,
  });

/** Waits until the page reads no stream any more: the send button is enabled again. */
const waitStreamsEnded = (page: Page) =>
  page.waitForFunction(() => !(document.querySelector('#send') as HTMLButtonElement).disabled, undefined, { timeout: WAIT });

/**
 * The page's exchanges from `from` on, once the tap has every byte of their bodies: the tap reads its copy
 * beside the page's reader and may lag behind what the page already drew.
 */
async function settled(tap: WireTap, from = 0): Promise<TappedExchange[]> {
  const deadline = Date.now() + WAIT;
  for (;;) {
    const exchanges = tap.exchanges.slice(from);
    if (exchanges.every((x) => x.end !== undefined || x.failed !== undefined)) return exchanges;
    const open = exchanges.filter((x) => x.end === undefined && x.failed === undefined).map((x) => `${x.method} ${x.path}`);
    assert.ok(Date.now() < deadline, `responses still open after the run completed: ${open.join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Resolves once the server has audited the scenario's question: it asks whether or not a page is there to see it. */
async function waitForAsked(s: Scenario) {
  const deadline = Date.now() + WAIT;
  while (!s.c.server.audit().some((a) => a.sessionId === s.sessionId && a.event === 'asked')) {
    assert.ok(Date.now() < deadline, 'the server did not ask while the page was offline');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The open card answered "直接实现" by a click, as a user does. */
async function answer(chat: ChatPage) {
  const card = await chat.openCard();
  await option(card, '直接实现').check();
  await card.locator('[part~="submit-button"]').click();
  await receipt(card).waitFor({ timeout: WAIT });
}

/**
 * The run ended as one never interrupted does: the transcript, one card and one receipt; every frame the page
 * received (from exchange `from` on) once and none missing, ending with `done completed`; one `asked` and one
 * `answered` in the audit and the server's trace; one continue; the model got the answer once.
 */
/**
 * `restored`: the page drew the run's start from the session view and its card from GET pending (a pick-up
 * told 204 while the run was paused), so its frames of the run begin with the answer's, not at seq 1.
 */
async function assertLikeUninterrupted(
  s: Scenario,
  transcript: string[],
  modelRequests: number,
  from = 0,
  { restored = false }: { restored?: boolean } = {},
): Promise<Frame[]> {
  const { c, chat, tap } = s;
  await waitRunStatus(chat.page, 'completed');
  const frames = framesOf(tap, await settled(tap, from));
  assert.deepEqual(await transcriptOf(chat.page), transcript, 'the page does not show what an uninterrupted run shows');
  assert.equal(await chat.page.locator(SEL.card).count(), 1, 'not exactly one card');
  assert.equal(await chat.page.locator(`${SEL.card} [part~="receipt"]`).count(), 1, 'not exactly one receipt');
  assert.equal(await chat.page.locator(`${SEL.card} [part~="form"]`).count(), 0, 'a card is still open');
  assert.equal(await chat.page.locator('[data-testid="run-error"]').count(), 0, 'the page shows an error');
  assert.equal(await chat.page.textContent(CONNECTION), '', 'the page still says it is reconnecting');

  const runs = assertEachFrameOnce(frames, s.tag, { fromFirst: !restored });
  assert.equal(runs.size, 1, `the page saw frames of ${runs.size} runs`);
  const run = [...runs.values()][0]!;
  assert.deepEqual([run.at(-1)!.event, run.at(-1)!.data.reason], ['done', 'completed'], 'the run does not end with done completed');
  const asked = run.filter((f) => f.event === 'user_input_required');
  assert.equal(
    asked.length,
    restored ? 0 : 1,
    restored ? 'the card came on a stream besides GET pending' : 'not exactly one user_input_required',
  );
  const resolved = run.filter((f) => f.event === 'interaction_resolved' && f.data.status === 'answered');
  assert.equal(resolved.length, 1);
  const requestId = (restored ? resolved[0]!.data.requestId : asked[0]!.data.id) as string;

  assert.equal(tap.on('/api/chat/continue', 'POST').length, 1, 'the answer was sent more than once');
  await waitForAudit(c.server, requestId, 'answered');
  const events = c.server
    .audit()
    .filter((a) => a.requestId === requestId)
    .map((a) => a.event);
  assert.deepEqual(events, ['asked', 'answered'], 'the audit does not show one question answered once');
  const trace = (await (await fetch(`${c.server.url}/api/trace?sessionId=${encodeURIComponent(s.sessionId)}`)).json()) as {
    lines: Array<{ source: string; text: string }>;
  };
  const traced = trace.lines.filter((l) => l.source === 'audit').map((l) => JSON.parse(l.text).event);
  assert.equal(traced.filter((e: string) => e === 'answered').length, 1, `the server's trace has answers: ${traced.join(', ')}`);

  const model = modelOf(s);
  assert.equal(model.requests.length, modelRequests, 'the model was called another number of times');
  assertToolResultSent(model, modelRequests - 1, CALL, ANSWER);
  return frames;
}

/** The scenarios, each a subtest of the one case that holds the server. */
const SCENARIOS: Array<{ name: string; tag: string; todo?: string; run: (c: Case, tag: string) => Promise<void> }> = [];
const scenarioTest = (name: string, tag: string, run: (c: Case, tag: string) => Promise<void>, todo?: string) =>
  void SCENARIOS.push({ name, tag, run, ...(todo ? { todo } : {}) });

for (const [tag, turns, transcript, modelRequests] of [
  ['baseline', [textThenAsk(FAST), echoAnswer(FAST)], expected, 2],
  ['baseline-tool', [...toolThenHeldAsk(Promise.resolve()), echoAnswer(FAST)], expectedWithTool, 3],
] as const) {
  scenarioTest(
    `uninterrupted${tag === 'baseline-tool' ? ', with a tool round' : ''} (through the proxy): the transcript the others must match, each frame once on its POST`,
    tag,
    (c) =>
      scenario(c, tag, [...turns], async (s) => {
        await s.chat.send(s.message);
        await answer(s.chat);
        const frames = await assertLikeUninterrupted(s, transcript(s.message), modelRequests);
        assert.deepEqual(
          [...new Set(frames.map((f) => f.via))],
          ['POST /api/chat', 'POST /api/chat/continue'],
          'an uninterrupted run was read from other responses',
        );
        assert.deepEqual(s.pickUps, [null], 'an uninterrupted run picked its stream up (beyond the check on load)');
      }),
  );
}

scenarioTest(
  'network cut before the card: the card logged while offline arrives on the picked-up stream, once',
  'before-card',
  (c, tag) => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    return scenario(c, tag, [...toolThenHeldAsk(gate), echoAnswer(FAST)], async (s) => {
      const { chat, tap } = s;
      await chat.send(s.message);
      // The first round's text and tool result are on the page; the question's round is held at the model.
      await chat.page.locator('[data-testid="tool-text"]').waitFor({ timeout: WAIT });
      await cutNetwork(s);
      await waitBroken(tap, '/api/chat', 'POST');
      release();
      // The server goes on without the page: it asks, and logs the card for whoever picks the run up.
      await waitForAsked(s);
      await waitReconnecting(chat.page);
      assert.equal(await chat.page.locator(SEL.card).count(), 0, 'a card reached the page while it was offline');
      await c.evidence.screenshot(chat.page, `${tag}-reconnecting`);
      const failedWhileOffline = tap.on('/api/chat/stream', 'GET').filter((x) => x.failed).length;

      await s.context.setOffline(false);
      await waitConnected(chat.page);
      await answer(chat);
      const frames = await assertLikeUninterrupted(s, expectedWithTool(s.message), 3);

      assert.ok(failedWhileOffline > 0, 'no pick-up was tried (and failed) while the page was offline');
      const onPost = frames.filter((f) => f.via === 'POST /api/chat');
      assert.ok(!onPost.some((f) => f.event === 'user_input_required'), 'the card came on the first response, before the cut');
      const card = frames.find((f) => f.event === 'user_input_required')!;
      assert.match(card.via, /^GET \/api\/chat\/stream/, 'the card did not come on a picked-up stream');
      // Every pick-up after the cut names the last frame the first response delivered.
      assert.deepEqual([...new Set(s.pickUps.slice(1))], [onPost.at(-1)!.id], 'the pick-ups did not start after the last frame received');
    });
  },
);

scenarioTest(
  'network cut while the card is open: nothing reconnects (no stream is open), and the answer after coming back continues once',
  'card-open',
  (c, tag) =>
    scenario(c, tag, [textThenAsk(FAST), echoAnswer(FAST)], async (s) => {
      const { chat } = s;
      await chat.send(s.message);
      await chat.openCard();
      await waitRunStatus(chat.page, 'paused');
      await s.context.setOffline(true);
      // Keep-alive sockets die too, so the answer has to open a new connection.
      s.proxy.dropAll();
      await chat.page.waitForFunction(() => !navigator.onLine, undefined, { timeout: WAIT });
      // Longer than the 2 s after which a cut stream would say "reconnecting": with no stream open, nothing may.
      const since = await chat.page.evaluate(() => performance.now());
      await chat.page.waitForFunction((t) => performance.now() - t > 2500, since, { timeout: WAIT });
      assert.equal(await chat.page.textContent(CONNECTION), '', 'the page says it is reconnecting with no stream open');
      assert.equal(await chat.page.locator(`${SEL.card} [part~="form"]`).count(), 1, 'the open card did not stay open');

      await s.context.setOffline(false);
      await chat.page.waitForFunction(() => navigator.onLine, undefined, { timeout: WAIT });
      await answer(chat);
      await assertLikeUninterrupted(s, expected(s.message), 2);
      assert.deepEqual(s.pickUps, [null], 'the page picked a stream up though none was cut');
    }),
);

scenarioTest('network cut mid-text: the rest of the text is replayed after the last frame received, no piece twice', 'mid-text', (c, tag) =>
  scenario(c, tag, [textThenAsk(SLOW), echoAnswer(FAST)], async (s) => {
    const { chat, tap } = s;
    await chat.send(s.message);
    await waitForText(chat.page, OPENING.slice(0, 3));
    await cutNetwork(s);
    await waitBroken(tap, '/api/chat', 'POST');
    await waitReconnecting(chat.page);
    const shown = (await chat.assistantText()).trim();
    c.note(`${tag}.textShownWhileCut`, shown);
    await s.context.setOffline(false);
    await waitConnected(chat.page);
    await answer(chat);
    const frames = await assertLikeUninterrupted(s, expected(s.message), 2);

    const onPost = frames.filter((f) => f.via === 'POST /api/chat');
    const pickedUp = frames.filter((f) => f.via.startsWith('GET /api/chat/stream'));
    assert.ok(
      onPost.some((f) => f.event === 'message_delta'),
      'no text arrived before the cut',
    );
    assert.ok(
      pickedUp.some((f) => f.event === 'message_delta'),
      'the cut did not land mid-text: no text came after it',
    );
    assert.ok(OPENING.startsWith(shown) && shown.length < OPENING.length, 'the page showed more or other text than arrived before the cut');
    assert.equal(s.pickUps[1], onPost.at(-1)!.id, 'the first pick-up did not start after the last frame received');
  }),
);

scenarioTest('network cut during the continue stream: the answer is not sent again, its stream is picked up by id', 'continue', (c, tag) =>
  scenario(c, tag, [textThenAsk(FAST), echoAnswer(SLOW)], async (s) => {
    const { chat, tap } = s;
    await chat.send(s.message);
    await answer(chat);
    await waitForText(chat.page, '模型收');
    await cutNetwork(s);
    await waitBroken(tap, '/api/chat/continue', 'POST');
    // The card's stream reports through the provider; the page says so all the same.
    await waitReconnecting(chat.page);
    await s.context.setOffline(false);
    await waitConnected(chat.page);
    const frames = await assertLikeUninterrupted(s, expected(s.message), 2);

    const onContinue = frames.filter((f) => f.via === 'POST /api/chat/continue');
    const pickedUp = frames.filter((f) => f.via.startsWith('GET /api/chat/stream'));
    assert.equal(onContinue[0]!.event, 'interaction_resolved');
    assert.ok(
      onContinue.some((f) => f.event === 'message_delta'),
      'no text of the continue arrived before the cut',
    );
    assert.ok(
      pickedUp.some((f) => f.event === 'message_delta'),
      'the cut did not land mid-text: no text came after it',
    );
    assert.equal(s.pickUps[1], onContinue.at(-1)!.id, 'the pick-up did not start after the last frame of the continue');
  }),
);

scenarioTest('the server side drops the socket (the browser stays online), mid-text and again mid-continue', 'server-drop', (c, tag) =>
  scenario(c, tag, [textThenAsk(SLOW), echoAnswer(SLOW)], async (s) => {
    const { chat, tap, proxy } = s;
    await chat.send(s.message);
    await waitForText(chat.page, OPENING.slice(0, 3));
    // Refused until the page says it is reconnecting: the server is away for longer than a blip.
    proxy.refuse();
    assert.ok(proxy.dropAll() > 0, 'the page had no live connection to drop');
    await waitBroken(tap, '/api/chat', 'POST');
    await waitReconnecting(chat.page);
    proxy.accept();
    await waitConnected(chat.page);
    await answer(chat);
    await waitForText(chat.page, '模型收');
    // This time the server is back at once: the reader's own retry picks the continue up.
    assert.ok(proxy.dropAll() > 0, 'the continue had no live connection to drop');
    await waitBroken(tap, '/api/chat/continue', 'POST');
    const frames = await assertLikeUninterrupted(s, expected(s.message), 2);

    assert.equal(await chat.page.evaluate(() => navigator.onLine), true, 'the browser went offline');
    const pickUpsWithText = new Set(frames.filter((f) => f.event === 'message_delta' && f.via.startsWith('GET')).map((f) => f.exchange.id));
    assert.equal(pickUpsWithText.size, 2, 'the text of each cut stream did not go on on its own pick-up');
  }),
);

scenarioTest('a reload mid-run picks the run up from its first frame beside the history: the text is drawn once', 'reload', (c, tag) =>
  scenario(c, tag, [textThenAsk(SLOW), echoAnswer(FAST)], async (s) => {
    const { chat, tap } = s;
    await chat.send(s.message);
    await waitForText(chat.page, OPENING.slice(0, 3));
    const mark = tap.exchanges.length;
    await chat.reload();
    await answer(chat);
    // The page after the reload alone must look like an uninterrupted run and read each frame once.
    const afterReload = await assertLikeUninterrupted(s, expected(s.message), 2, mark);

    // What the page before the reload got (its tap may have lost the last bytes with the page): once each, too.
    const before = framesOf(tap, tap.exchanges.slice(0, mark));
    assertEachFrameOnce(before, 'before the reload');
    assert.ok(
      before.some((f) => f.event === 'message_delta'),
      'no text arrived before the reload',
    );
    const resumed = afterReload.filter((f) => f.via.startsWith('GET /api/chat/stream'));
    assert.equal(resumed[0]?.seq, 1, 'the reloaded page did not pick the run up from its first frame');
    assert.ok(
      resumed.some((f) => f.event === 'user_input_required'),
      'the card did not come on the picked-up stream',
    );
  }),
);

scenarioTest('the stop button ends a run as cancelled mid-text, and the next message runs', 'stop', (c, tag) =>
  scenario(c, tag, [{ text: OPENING + TAIL, ...SLOW }, { text: '好的，这是下一条消息的回复。' }], async (s) => {
    const { chat, tap } = s;
    await chat.send(s.message);
    await waitForText(chat.page, OPENING.slice(0, 3));
    await chat.page.locator('[data-testid="stop-button"]').click();
    await waitRunStatus(chat.page, 'cancelled');
    // The run's own stream may say `done` before the stop's answer is read: wait for that answer's end.
    await tap.waitFor('/api/chat/stop', (x) => x.method === 'POST' && x.end !== undefined, WAIT);
    const stopped = tap.on('/api/chat/stop', 'POST');
    assert.equal(stopped.length, 1);
    assert.equal(stopped[0]!.status, 200);
    assert.deepEqual(JSON.parse(tap.body(stopped[0]!).toString('utf8')), { stopped: true });
    const run = assertEachFrameOnce(framesOf(tap, await settled(tap)), 'stopped run');
    const last = [...run.values()][0]!.at(-1)!;
    assert.deepEqual([last.event, last.data.reason], ['done', 'cancelled']);
    const cut = (await chat.assistantText()).trim();
    assert.ok(cut.length > 0 && cut.length < (OPENING + TAIL).length, `the run was not stopped mid-text: ${cut.length} characters shown`);

    await chat.send('再来一条');
    await waitRunStatus(chat.page, 'completed');
    assert.deepEqual(await transcriptOf(chat.page), [
      `user-text: ${s.message}`,
      `assistant-text: ${cut}`,
      'user-text: 再来一条',
      'assistant-text: 好的，这是下一条消息的回复。',
    ]);
    assert.equal(await chat.page.locator('[data-testid="run-error"]').count(), 0, 'the page shows an error');
    const model = modelOf(s);
    assert.equal(model.requests.length, 2);
    // What the model had not finished is not kept (§11): its next request has the two messages and no reply.
    assert.deepEqual(
      model.requests[1]!.messages.map((m) => [m.role, m.content]).filter(([role]) => role !== 'system'),
      [
        ['user', s.message],
        ['user', '再来一条'],
      ],
    );
  }),
);

scenarioTest(
  'network cut before the run sent its first frame, the card asked while offline: the page shows the card after coming back',
  'before-first-frame',
  (c, tag) => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    return scenario(c, tag, [{ ...textThenAsk(FAST), hold: gate }, echoAnswer(FAST)], async (s) => {
      const { chat, tap } = s;
      await chat.send(s.message);
      // The response has begun (its `retry:` line), the model holds its first piece back.
      await tap.waitFor('/api/chat', (x) => x.method === 'POST' && x.chunks.length > 0, WAIT);
      // The page reads with a chunk it loads on its first stream: a cut while that loads is another scenario.
      await readerLoaded(chat.page);
      await cutNetwork(s);
      await waitBroken(tap, '/api/chat', 'POST');
      release();
      await waitForAsked(s);
      await waitReconnecting(chat.page);
      await s.context.setOffline(false);
      await waitConnected(chat.page);
      await waitStreamsEnded(chat.page);
      c.note(
        `${tag}.pickUpStatuses`,
        tap.on('/api/chat/stream', 'GET').map((x) => x.status ?? x.failed),
      );
      // A page that restores from GET pending after the 204 shows the card: the bound is the suite's usual one.
      await chat
        .card()
        .locator('[part~="form"]')
        .waitFor({ timeout: WAIT })
        .catch(async () => {
          const status = await chat.page.textContent(SEL.runStatus);
          const pending = tap.on('/api/interactions/pending', 'GET').length;
          assert.fail(`after the pick-up was told 204 the page shows no card (run status "${status}", ${pending} GET pending in all)`);
        });
      await answer(chat);
      await assertLikeUninterrupted(s, expected(s.message), 2, 0, { restored: true });
    });
  },
);

scenarioTest(
  'a reload during the continue stream picks the run up past the card: the answered card and the reply, once',
  'reload-continue',
  (c, tag) =>
    scenario(c, tag, [textThenAsk(FAST), echoAnswer(SLOW)], async (s) => {
      const { chat, tap } = s;
      await chat.send(s.message);
      await answer(chat);
      await waitForText(chat.page, '模型收');
      const mark = tap.exchanges.length;
      await chat.reload();
      await waitStreamsEnded(chat.page);
      const status = await chat.page.textContent(SEL.runStatus);
      const resumed = framesOf(tap, await settled(tap, mark)).filter((f) => f.via.startsWith('GET'));
      c.note(
        `${tag}.resumedFrames`,
        resumed.map((f) => `${f.id} ${f.event}`),
      );
      assert.equal(
        status,
        'completed',
        `the picked-up stream ended at ${resumed.at(-1)?.id} ${resumed.at(-1)?.event} ${resumed.at(-1)?.data?.reason ?? ''}; ` +
          `the page shows: ${(await transcriptOf(chat.page)).join(' / ')}`,
      );
      await assertLikeUninterrupted(s, expected(s.message), 2, mark);
    }),
);

scenarioTest(
  'every script the stream reader needs is in before the first chat is posted: a cut mid-stream never needs to fetch one',
  'reader-chunk',
  (c, tag) =>
    scenario(c, tag, [textThenAsk(FAST), echoAnswer(FAST)], async (s) => {
      const { chat, tap } = s;
      await chat.send(s.message);
      await tap.waitFor('/api/chat', (x) => x.method === 'POST' && x.end !== undefined, WAIT);
      // A browser does not fetch a module again once its fetch failed: whatever reads the stream (and picks it
      // up) must be in before the chat goes out, so that no cut can find it missing.
      const timing = await chat.page.evaluate(() =>
        (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).map((e) => ({
          name: e.name,
          start: e.startTime,
          end: e.responseEnd,
        })),
      );
      const post = timing.find((e) => new URL(e.name).pathname === '/api/chat');
      assert.ok(post, `the page fetched: ${timing.map((e) => e.name).join(', ')}`);
      const late = timing.filter((e) => /\.js$/.test(new URL(e.name).pathname) && e.end > post.start);
      assert.deepEqual(
        late.map((e) => e.name),
        [],
        'no script of the page is still being fetched once the chat is posted',
      );
      await answer(chat);
      await assertLikeUninterrupted(s, expected(s.message), 2);
    }),
);

test('contract §11 in Chromium: cuts, drops, reloads and the stop button on one demo server', (t: TestContext) =>
  // Enough turns for every scenario's model calls; each is routed to its scenario's script.
  runCase('reconnect', { turns: Array.from({ length: 100 }, () => dispatch) }, async (c) => {
    for (const { name, tag, todo, run } of SCENARIOS) await t.test(name, todo ? { todo } : {}, () => run(c, tag));
  }));
