/** The demo's environment (docs/protocol.md §7): defaults, and a clear error for a wrong value. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import webpush from 'web-push';
import { listeningOrigin, readDemoConfig } from '../../demo/config.js';

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

test('§13 variables: defaults — notifiers after 30 s, no webhook, answer links off, VAPID keys from the store, private push endpoints refused', () => {
  const c = readDemoConfig({});
  assert.equal(c.notifyAfterMs, 30_000);
  assert.equal(c.webhook, undefined);
  assert.equal(c.answerLinks, undefined);
  assert.deepEqual(c.vapid, {});
  assert.equal(c.pushAllowPrivate, false);
});

test('ASK_USER_NOTIFY_AFTER_MS is an integer >= 0', () => {
  assert.equal(readDemoConfig({ ASK_USER_NOTIFY_AFTER_MS: '0' }).notifyAfterMs, 0);
  assert.equal(readDemoConfig({ ASK_USER_NOTIFY_AFTER_MS: '1500' }).notifyAfterMs, 1500);
  for (const bad of ['-1', '1.5', 'soon'])
    assert.throws(() => readDemoConfig({ ASK_USER_NOTIFY_AFTER_MS: bad }), { code: 'invalid_config', message: /ASK_USER_NOTIFY_AFTER_MS/ });
});

test('the webhook: URL and whsec_ secret together; either alone, a bad URL or a bad secret names its variable and quotes no secret', () => {
  const secret = `whsec_${Buffer.from('a webhook secret of the receiver').toString('base64')}`;
  const url = 'https://hooks.example.test/ask-user?key=receiver-key';
  assert.deepEqual(readDemoConfig({ ASK_USER_WEBHOOK_URL: url, ASK_USER_WEBHOOK_SECRET: secret }).webhook, { url, secret });
  assert.throws(() => readDemoConfig({ ASK_USER_WEBHOOK_URL: url }), { code: 'invalid_config', message: /ASK_USER_WEBHOOK_SECRET/ });
  assert.throws(() => readDemoConfig({ ASK_USER_WEBHOOK_SECRET: secret }), {
    code: 'invalid_config',
    message: /ASK_USER_WEBHOOK_SECRET is set but ASK_USER_WEBHOOK_URL is not/,
  });
  const badUrl = (() => {
    try {
      readDemoConfig({ ASK_USER_WEBHOOK_URL: 'ftp://hooks.example.test/?key=receiver-key', ASK_USER_WEBHOOK_SECRET: secret });
    } catch (err) {
      return err as Error & { code: string };
    }
    return undefined;
  })();
  assert.equal(badUrl?.code, 'invalid_config');
  assert.match(badUrl!.message, /ASK_USER_WEBHOOK_URL must be an absolute http\(s\) URL/);
  assert.ok(!badUrl!.message.includes('receiver-key'), 'the URL (a key in its query) is quoted');
  for (const bad of ['a webhook secret', 'whsec_not base64!', `whsec-${secret.slice(6)}`]) {
    let message = '';
    assert.throws(
      () => readDemoConfig({ ASK_USER_WEBHOOK_URL: url, ASK_USER_WEBHOOK_SECRET: bad }),
      (err: Error & { code?: string }) => ((message = err.message), err.code === 'invalid_config'),
    );
    assert.match(message, /ASK_USER_WEBHOOK_SECRET must be a whsec_ secret/);
    assert.ok(!message.includes(bad), 'the secret is quoted');
  }
});

test('answer links: ASK_USER_ANSWER_LINKS=1 on the listening origin, or on ASK_USER_PUBLIC_URL; the URL alone, or a bad one, is refused', () => {
  assert.deepEqual(readDemoConfig({ ASK_USER_ANSWER_LINKS: '1' }).answerLinks, {});
  assert.equal(readDemoConfig({ ASK_USER_ANSWER_LINKS: '0' }).answerLinks, undefined);
  assert.deepEqual(readDemoConfig({ ASK_USER_ANSWER_LINKS: '1', ASK_USER_PUBLIC_URL: 'https://agent.example.test/chat' }).answerLinks, {
    publicUrl: 'https://agent.example.test/chat',
  });
  assert.throws(() => readDemoConfig({ ASK_USER_ANSWER_LINKS: 'yes' }), { code: 'invalid_config', message: /ASK_USER_ANSWER_LINKS/ });
  assert.throws(() => readDemoConfig({ ASK_USER_PUBLIC_URL: 'https://agent.example.test' }), {
    code: 'invalid_config',
    message: /ASK_USER_PUBLIC_URL applies with ASK_USER_ANSWER_LINKS=1 only/,
  });
  assert.throws(() => readDemoConfig({ ASK_USER_ANSWER_LINKS: '1', ASK_USER_PUBLIC_URL: 'agent.example.test' }), {
    code: 'invalid_config',
    message: /ASK_USER_PUBLIC_URL must be an absolute http\(s\) URL/,
  });
  assert.equal(listeningOrigin('127.0.0.1', 3000), 'http://127.0.0.1:3000');
  assert.equal(listeningOrigin('::1', 8080), 'http://[::1]:8080');
});

test('Web Push keys: both or neither, a P-256 pair, a mailto: or https: subject; a wrong one names its variable and quotes no key', () => {
  const { publicKey, privateKey } = webpush.generateVAPIDKeys();
  const other = webpush.generateVAPIDKeys();
  const env = {
    ASK_USER_VAPID_PUBLIC_KEY: publicKey,
    ASK_USER_VAPID_PRIVATE_KEY: privateKey,
    ASK_USER_VAPID_SUBJECT: 'https://agent.example.test',
  };
  assert.deepEqual(readDemoConfig(env).vapid, { publicKey, privateKey, subject: 'https://agent.example.test' });
  assert.deepEqual(readDemoConfig({ ASK_USER_VAPID_SUBJECT: 'mailto:ops@example.test' }).vapid, { subject: 'mailto:ops@example.test' });
  assert.throws(() => readDemoConfig({ ASK_USER_VAPID_PUBLIC_KEY: publicKey }), {
    code: 'invalid_config',
    message: /ASK_USER_VAPID_PUBLIC_KEY is set but ASK_USER_VAPID_PRIVATE_KEY is not/,
  });
  assert.throws(() => readDemoConfig({ ASK_USER_VAPID_PRIVATE_KEY: privateKey }), {
    code: 'invalid_config',
    message: /ASK_USER_VAPID_PRIVATE_KEY is set but ASK_USER_VAPID_PUBLIC_KEY is not/,
  });
  for (const pair of [
    { ASK_USER_VAPID_PUBLIC_KEY: publicKey, ASK_USER_VAPID_PRIVATE_KEY: other.privateKey },
    { ASK_USER_VAPID_PUBLIC_KEY: publicKey, ASK_USER_VAPID_PRIVATE_KEY: 'short' },
  ]) {
    let message = '';
    assert.throws(
      () => readDemoConfig(pair),
      (err: Error & { code?: string }) => ((message = err.message), err.code === 'invalid_config'),
    );
    assert.match(message, /ASK_USER_VAPID_PUBLIC_KEY and ASK_USER_VAPID_PRIVATE_KEY must be a P-256 key pair/);
    assert.ok(!message.includes(pair.ASK_USER_VAPID_PRIVATE_KEY) && !message.includes(publicKey), 'a key is quoted');
  }
  assert.throws(() => readDemoConfig({ ASK_USER_VAPID_SUBJECT: 'http://agent.example.test' }), {
    code: 'invalid_config',
    message: /ASK_USER_VAPID_SUBJECT must be a mailto: or https: URI/,
  });
});

test('ASK_USER_PUSH_ALLOW_PRIVATE=1 lets push endpoints on loopback and private addresses through', () => {
  assert.equal(readDemoConfig({ ASK_USER_PUSH_ALLOW_PRIVATE: '1' }).pushAllowPrivate, true);
  assert.throws(() => readDemoConfig({ ASK_USER_PUSH_ALLOW_PRIVATE: 'true' }), {
    code: 'invalid_config',
    message: /ASK_USER_PUSH_ALLOW_PRIVATE/,
  });
});
