/**
 * What the §13 cases (notifications.test.ts) stand on: one demo server for the file, started with every
 * way of reaching a user who is away turned on — a short `ASK_USER_NOTIFY_AFTER_MS`, a Standard Webhooks
 * notifier pointed at a receiver of the test's own on loopback, Web Push with a fake push service over HTTPS
 * on loopback (allowed by `ASK_USER_PUSH_ALLOW_PRIVATE=1`, its certificate trusted through
 * `NODE_EXTRA_CA_CERTS`, so the demo needs no variable of its own for it), and answer links on. The push
 * service and the browser's keys are the ones the plugin's Web Push tests stand on
 * (tests/plugin/notify/push-test-service.ts): it records each message, the test decrypts it by hand.
 */
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { startPushService } from '../../plugin/notify/push-test-service.js';
import { makeTempDir, type TempDir } from '../../helpers/temp-dir.js';
import type { SharedDemo } from './acceptance-case.js';
import { sharedDemo } from './shared-demo.js';

/** How long an open card waits before the notifiers run, in this file's demo. */
export const NOTIFY_AFTER_MS = 3000;

export interface WebhookDelivery {
  at: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface WebhookReceiver {
  readonly url: string;
  readonly secret: string;
  readonly deliveries: WebhookDelivery[];
  /** The deliveries whose `webhook-id` is `requestId` (the kit sends the requestId as the id). */
  of(requestId: string): WebhookDelivery[];
  /** Resolves with the deliveries of `requestId` once there are `n` (fails after `ms`). */
  waitFor(requestId: string, n?: number, ms?: number): Promise<WebhookDelivery[]>;
  /** The payload of a delivery, once its signature checks with the secret (Standard Webhooks). */
  verify(delivery: WebhookDelivery): { type: string; timestamp: string; data: Record<string, unknown> };
  close(): Promise<void>;
}

/** A Standard Webhooks receiver on 127.0.0.1 that keeps every delivery and answers 204. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  const deliveries: WebhookDelivery[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      deliveries.push({ at: Date.now(), headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.statusCode = 204;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const of = (requestId: string) => deliveries.filter((d) => d.headers['webhook-id'] === requestId);
  return {
    url: `http://127.0.0.1:${port}/hooks/ask-user`,
    secret,
    deliveries,
    of,
    async waitFor(requestId, n = 1, ms = NOTIFY_AFTER_MS + 10_000) {
      const until = Date.now() + ms;
      while (of(requestId).length < n) {
        if (Date.now() > until) throw new Error(`${n} webhook deliveries for ${requestId} within ${ms} ms (got ${of(requestId).length})`);
        await new Promise((r) => setTimeout(r, 50));
      }
      return of(requestId);
    },
    verify(delivery) {
      const headers = Object.fromEntries(Object.entries(delivery.headers).map(([k, v]) => [k, String(v)]));
      return new Webhook(secret).verify(delivery.body, headers) as ReturnType<WebhookReceiver['verify']>;
    },
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

export type PushService = Awaited<ReturnType<typeof startPushService>>;

export interface NotifyDemo {
  shared: SharedDemo;
  webhook: WebhookReceiver;
  push: PushService;
}

let started: Promise<NotifyDemo & { tmp: TempDir }> | undefined;

/** The file's demo with §13 on, and the receivers it reaches; started on first use. */
export function notifyDemo(): Promise<NotifyDemo> {
  started ??= (async () => {
    const tmp = await makeTempDir('ask-user-e2e-notify-');
    const webhook = await startWebhookReceiver();
    const push = await startPushService();
    const caFile = tmp.file('push-service-ca.pem');
    await writeFile(caFile, push.ca);
    const shared = await sharedDemo({
      env: {
        ASK_USER_NOTIFY_AFTER_MS: String(NOTIFY_AFTER_MS),
        ASK_USER_WEBHOOK_URL: webhook.url,
        ASK_USER_WEBHOOK_SECRET: webhook.secret,
        ASK_USER_ANSWER_LINKS: '1',
        ASK_USER_PUSH_ALLOW_PRIVATE: '1',
        // The push service's self-signed certificate, trusted the way any Node process is told of a CA.
        NODE_EXTRA_CA_CERTS: caFile,
      },
    });
    return { shared, webhook, push, tmp };
  })();
  return started;
}

export async function closeNotifyDemo(): Promise<void> {
  const demo = await started?.catch(() => undefined);
  started = undefined;
  if (!demo) return;
  await demo.webhook.close().catch(() => {});
  await demo.push.close().catch(() => {});
  await demo.tmp.remove().catch(() => {});
}

/** The card's title: a card of one question draws it as its legend. */
export const CARD_TITLE = 'ask-user-card :is([part~="title"], [part~="heading"])';

/** An answer link's token: the last path segment of `<publicUrl>/answer/<token>`. */
export const tokenOf = (link: string): string => new URL(link).pathname.split('/').pop()!;
export const ANSWER_LINK = /^http:\/\/127\.0\.0\.1:\d+\/answer\/([A-Za-z0-9_-]{43})$/;

/** Every place the demo writes down what happened for a case: its output lines (stdout, stderr; audit lines among them) and its trace. */
export async function logsOf(shared: SharedDemo, fromLine: number, sessions: readonly string[]): Promise<string> {
  const output = shared.server.output
    .slice(fromLine)
    .map((l) => `${l.stream}: ${l.text}`)
    .join('\n');
  const traces: string[] = [];
  for (const sessionId of sessions) {
    const res = await fetch(`${shared.server.url}/api/trace?sessionId=${encodeURIComponent(sessionId)}`);
    if (!res.ok) throw new Error(`GET /api/trace for ${sessionId}: ${res.status}`);
    traces.push(await res.text());
  }
  return `${output}\n${traces.join('\n')}`;
}
