/**
 * Free text never leaks: a canary typed as customInput (text mode, and the "Other" box of a choice) must
 * appear in no line the demo server process prints (stdout and stderr, audit lines included), in no audit
 * record, and in no error body or error event — on accepted answers and on every kind of rejection. As a
 * control, the canary does reach the model in the ToolResult, so the test would see it if it travelled
 * anywhere else. The server is the real `demo/server.ts`, run as `npm run demo` runs it (tsx).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { makeTempDir, type TempDir } from '../helpers/temp-dir.js';
import { startScriptedModel, type ScriptedModel } from '../helpers/scripted-model.js';
import { answerBody, postStream, type StreamResult } from '../demo/sse-client.js';
import { askingTurn } from './helpers/asking-model.js';
import { auditLines, killAll, spawnServer, type ServerProcess } from './helpers/server-process.js';

const DEMO_SERVER = fileURLToPath(new URL('../../demo/server.ts', import.meta.url));
const CANARY = `CANARY${randomBytes(8).toString('hex')}`;
/** A ToolResult carrying this makes the scripted model fail, to walk the error path with the canary in the history. */
const FAIL = 'make-the-model-fail';

describe('a canary in customInput', () => {
  let dir: TempDir;
  let model: ScriptedModel;
  let server: ServerProcess;
  const replies: StreamResult[] = [];
  before(async () => {
    dir = await makeTempDir('ask-user-canary-');
    model = await startScriptedModel({
      fallback: (body) => {
        const last = body.messages.at(-1);
        if (last?.role === 'tool' && String(last.content).includes(FAIL)) return { failStatus: 500 };
        return askingTurn(body);
      },
    });
    server = await spawnServer(
      DEMO_SERVER,
      {
        PORT: '0',
        HOST: '127.0.0.1',
        OPENAI_BASE_URL: model.baseURL,
        OPENAI_API_KEY: 'test',
        ASK_USER_STORE: `sqlite://${dir.file('canary.db')}`,
      },
      { ready: /demo listening on (http:\/\/\S+)/, tsx: true },
    );
  });
  after(async () => {
    killAll();
    await model.close();
    await dir.remove();
  });

  const ask = async (sessionId: string, form: string) => {
    const chat = await postStream(`${server.url}/api/chat`, { sessionId, message: `ask ask-${sessionId} ${form}` });
    const id = chat.events.find((e) => e.event === 'user_input_required')?.data.id as string;
    assert.ok(id, chat.raw);
    return id;
  };
  const submit = async (body: unknown) => {
    const r = await postStream(`${server.url}/api/chat/continue`, body);
    replies.push(r);
    return r;
  };

  it('accepted in text mode and in the Other box: the model gets it (control)', async () => {
    const text = await submit(answerBody('c-text', await ask('c-text', 'text'), [], `my secret is ${CANARY}`));
    assert.equal(text.status, 200, text.raw);
    const other = await submit(answerBody('c-other', await ask('c-other', 'single'), ['safe'], `${CANARY} also`));
    assert.equal(other.status, 200, other.raw);
    const told = model.requests.filter((b) => b.messages.some((m) => m.role === 'tool' && String(m.content).includes(CANARY)));
    assert.ok(told.length >= 2, 'the canary travelled to the model as the ToolResult');
  });

  it('refused in every way a submission can be refused, the canary never echoed', async () => {
    const strict = await ask('c-strict', 'strict');
    const number = await ask('c-number', 'number');
    const answered = await ask('c-dup', 'text');
    assert.equal((await submit(answerBody('c-dup', answered, [], `first ${CANARY}`))).status, 200);
    const cases: Array<[unknown, number]> = [
      [answerBody('c-strict', strict, ['safe'], CANARY), 422], // custom_not_allowed
      [answerBody('c-strict', strict, [CANARY], ''), 422], // unknown option: the id is client input too
      [answerBody('c-number', number, [], CANARY), 422], // not_a_number
      [{ ...answerBody('c-number', number, [], CANARY), cancelled: 'no' }, 400],
      [answerBody('c-number', number, [], `${CANARY}${'x'.repeat(8001)}`), 400], // over the length limit
      [answerBody('c-number', number, [], `${CANARY}${'y'.repeat(70 * 1024)}`), 413],
      [answerBody('c-number', 'ask_not-a-real-id', [], CANARY), 400],
      [answerBody('c-number', 'ask_AAAAAAAAAAAAAAAAAAAAAA', [], CANARY), 404],
      [answerBody('someone-else', number, [], CANARY), 403],
      [answerBody('c-dup', answered, [], `again ${CANARY}`), 409],
    ];
    for (const [body, status] of cases) {
      const r = await submit(body);
      assert.equal(r.status, status, r.raw.slice(0, 300));
      assert.equal(typeof r.json?.error?.message, 'string');
    }
  });

  it('an answer whose continued run fails: the error event carries no canary', async () => {
    const r = await submit(answerBody('c-fail', await ask('c-fail', 'text'), [], `${CANARY} ${FAIL}`));
    assert.equal(r.status, 200);
    assert.ok(
      r.events.some((e) => e.event === 'error'),
      `the model failure is reported: ${r.raw}`,
    );
  });

  it('is in no error body, error event, log line or audit record', async () => {
    for (const r of replies) {
      if (r.json) assert.ok(!JSON.stringify(r.json).includes(CANARY), `error body leaks: ${r.raw.slice(0, 200)}`);
      for (const e of r.events.filter((x) => x.event === 'error')) assert.ok(!JSON.stringify(e.data).includes(CANARY), 'error event leaks');
    }
    await server.stop();
    const output = server.output();
    const audit = auditLines(server.stdout());
    assert.ok(audit.length >= 15, `the server did log its audit trail (${audit.length} lines)`);
    assert.ok(
      audit.some((e) => e.event === 'rejected' && e.reason === 'invalid_answer'),
      'rejections were audited',
    );
    assert.ok(
      audit.some((e) => e.event === 'answered' && (e.customInputLength as number) > CANARY.length),
      'lengths, not text',
    );
    const leaks = output.split('\n').filter((l) => l.includes(CANARY));
    assert.deepEqual(leaks, [], 'no log line carries the canary');
  });
});
