/**
 * The restart case on each runtime besides the loop on Chat Completions (restart-sqlite.test.ts): the
 * demo server as a child process, killed with -9 after the card, started again on the same SQLite file;
 * the card is still resumable and the answer reaches the model exactly once, as the ToolResult of the call.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { answerBody, first, getJson, postStream } from './sse-client.js';
import { askSingle } from './harness.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { startRestartableServer } from '../helpers/restartable-server.js';
import { startScriptedModel } from '../helpers/scripted-model.js';

const exact = '{"selections":["safe"],"customInput":"","cancelled":false}';

for (const runtime of ['responses', 'ai-sdk'] as const) {
  test(`kill -9 after the card on the ${runtime} runtime, restart on the same SQLite file: the answer resumes exactly once`, async (t) => {
    const dir = await makeTempDir('ask-user-runtime-restart-');
    const model = await startScriptedModel({ turns: [{ toolCalls: [askSingle('call_restart')] }, { text: 'Resumed.' }] });
    t.after(async () => {
      await model.close();
      await dir.remove();
    });
    const server = await startRestartableServer({
      store: `sqlite://${dir.file('ask.db')}`,
      env: { OPENAI_BASE_URL: model.baseURL, OPENAI_MODEL: 'scripted-test', ASK_USER_RUNTIME: runtime },
    });
    t.after(() => server.stop());
    const ask = first(await postStream(`${server.url}/api/chat`, { sessionId: 's-restart', message: 'go' }), 'user_input_required');
    await server.kill();
    await server.restart();
    assert.equal((await getJson(`${server.url}/api/interactions/pending?sessionId=s-restart`)).body.pending.resumable, true);
    const cont = await postStream(`${server.url}/api/chat/continue`, answerBody('s-restart', ask.id, ['safe']));
    assert.equal(cont.status, 200);
    assert.equal(model.requests.length, 2, 'the model is called once after the restart');
    assert.deepEqual(model.requests[1]!.messages.at(-1), { role: 'tool', tool_call_id: 'call_restart', content: exact });
    if (runtime === 'responses') {
      assert.deepEqual((model.requests[1]!.input as unknown[]).at(-1), {
        type: 'function_call_output',
        call_id: 'call_restart',
        output: exact,
      });
    }
  });
}
