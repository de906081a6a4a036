/** The demo's environment (docs/protocol.md §7): defaults, and a clear error for a wrong value. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readDemoConfig } from '../../demo/config.js';

test('defaults match the contract', () => {
  const c = readDemoConfig({});
  assert.equal(c.port, 3000);
  assert.equal(c.host, '127.0.0.1');
  assert.equal(c.baseURL, undefined, 'no model configured: the scripted assistant is used');
  assert.equal(c.storeUrl, 'sqlite://.data/ask-user.db');
  assert.equal(c.ttlMs, 30 * 60 * 1000);
  assert.equal(c.hostMode, 'persistent');
});

test('values are read, and a bad one names its variable', () => {
  const c = readDemoConfig({
    PORT: '0',
    OPENAI_BASE_URL: 'http://127.0.0.1:1/v1',
    OPENAI_MODEL: 'x',
    ASK_USER_STORE: 'memory',
    ASK_USER_TTL_MS: '5000',
    ASK_USER_HOST: 'in-process',
  });
  assert.deepEqual(
    [c.port, c.baseURL, c.model, c.storeUrl, c.ttlMs, c.hostMode],
    [0, 'http://127.0.0.1:1/v1', 'x', 'memory', 5000, 'in-process'],
  );
  assert.throws(() => readDemoConfig({ PORT: 'abc' }), { code: 'invalid_config', message: /PORT/ });
  assert.throws(() => readDemoConfig({ ASK_USER_TTL_MS: '0' }), { code: 'invalid_config', message: /ASK_USER_TTL_MS/ });
  assert.throws(() => readDemoConfig({ ASK_USER_HOST: 'memory' }), { code: 'invalid_config', message: /ASK_USER_HOST/ });
});

test('the developer trace is off unless ASK_USER_TRACE=1', () => {
  assert.equal(readDemoConfig({}).trace, false);
  assert.equal(readDemoConfig({ ASK_USER_TRACE: '0' }).trace, false);
  assert.equal(readDemoConfig({ ASK_USER_TRACE: '1' }).trace, true);
  assert.throws(() => readDemoConfig({ ASK_USER_TRACE: 'yes' }), { code: 'invalid_config', message: /ASK_USER_TRACE/ });
});

test('ASK_USER_SERVER picks the framework: koa (default), express or hono', () => {
  assert.equal(readDemoConfig({}).server, 'koa');
  assert.equal(readDemoConfig({ ASK_USER_SERVER: 'express' }).server, 'express');
  assert.equal(readDemoConfig({ ASK_USER_SERVER: 'hono' }).server, 'hono');
  assert.throws(() => readDemoConfig({ ASK_USER_SERVER: 'fastify' }), { code: 'invalid_config', message: /ASK_USER_SERVER/ });
});

test('ASK_USER_RUNTIME picks the runtime, and ASK_USER_MCP_URL lists http(s) MCP servers', () => {
  assert.equal(readDemoConfig({}).runtime, 'chat');
  for (const runtime of ['chat', 'responses', 'ai-sdk']) assert.equal(readDemoConfig({ ASK_USER_RUNTIME: runtime }).runtime, runtime);
  assert.throws(() => readDemoConfig({ ASK_USER_RUNTIME: 'langchain' }), /ASK_USER_RUNTIME must be one of chat, responses, ai-sdk/);
  assert.deepEqual(readDemoConfig({}).mcpUrls, [], "empty: the demo's own MCP server");
  assert.deepEqual(readDemoConfig({ ASK_USER_MCP_URL: 'http://127.0.0.1:9/mcp, https://mcp.example/x' }).mcpUrls, [
    'http://127.0.0.1:9/mcp',
    'https://mcp.example/x',
  ]);
  assert.throws(() => readDemoConfig({ ASK_USER_MCP_URL: 'file:///etc/passwd' }), /ASK_USER_MCP_URL must list http\(s\) URLs/);
});
