/**
 * What the Web Push tests stand on, written here rather than borrowed from the code under test: a push
 * service on loopback over HTTPS (its self-signed certificate built with node:crypto), a browser that
 * subscribes with its own P-256 key pair and auth secret and decrypts RFC 8291 `aes128gcm` messages by
 * hand, and a check of the VAPID `Authorization` header (RFC 8292) against the public key.
 */
import assert from 'node:assert/strict';
import {
  createDecipheriv,
  createECDH,
  createPublicKey,
  generateKeyPairSync,
  hkdfSync,
  randomBytes,
  sign,
  verify,
  X509Certificate,
} from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One DER element: tag, length, contents. */
function der(tag: number, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  const n = body.length;
  const length = n < 0x80 ? Buffer.from([n]) : n < 0x100 ? Buffer.from([0x81, n]) : Buffer.from([0x82, n >> 8, n & 0xff]);
  return Buffer.concat([Buffer.from([tag]), length, body]);
}

function oid(text: string): Buffer {
  const [a, b, ...rest] = text.split('.').map(Number) as [number, number, ...number[]];
  const bytes = [40 * a + b];
  for (const arc of rest) {
    const chunk = [arc & 0x7f];
    for (let v = arc >> 7; v > 0; v >>= 7) chunk.unshift((v & 0x7f) | 0x80);
    bytes.push(...chunk);
  }
  return der(0x06, Buffer.from(bytes));
}

const utcTime = (date: Date) => der(0x17, Buffer.from(date.toISOString().replace(/[-:T]/g, '').slice(2, 14) + 'Z'));

/** A self-signed P-256 certificate for `localhost`, `push.test` and 127.0.0.1, good for a day. */
export function selfSignedCertificate(): { key: string; cert: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const ecdsaWithSha256 = der(0x30, oid('1.2.840.10045.4.3.2'));
  const name = der(0x30, der(0x31, der(0x30, oid('2.5.4.3'), der(0x0c, Buffer.from('ask-user-kit test push service')))));
  const altNames = der(
    0x30,
    der(0x82, Buffer.from('localhost')),
    der(0x82, Buffer.from('push.test')),
    der(0x87, Buffer.from([127, 0, 0, 1])),
  );
  const extensions = der(0xa3, der(0x30, der(0x30, oid('2.5.29.17'), der(0x04, altNames))));
  const now = Date.now();
  const tbs = der(
    0x30,
    der(0xa0, der(0x02, Buffer.from([2]))),
    der(0x02, Buffer.concat([Buffer.from([0x01]), randomBytes(8)])),
    ecdsaWithSha256,
    name,
    der(0x30, utcTime(new Date(now - 60_000)), utcTime(new Date(now + 86_400_000))),
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
    extensions,
  );
  const signature = sign('sha256', tbs, privateKey);
  const certificate = der(0x30, tbs, ecdsaWithSha256, der(0x03, Buffer.from([0]), signature));
  const cert = `-----BEGIN CERTIFICATE-----\n${certificate.toString('base64').replace(/.{64}/g, '$&\n')}\n-----END CERTIFICATE-----\n`;
  // Parsed back, so a malformed build fails here and not as a TLS error.
  assert.ok(new X509Certificate(cert).checkPrivateKey(privateKey));
  return { key: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, cert };
}

export interface PushRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** When it arrived (ms). */
  at: number;
}

/**
 * A push service on 127.0.0.1 that answers each message with the next of `statuses` (then 201), and a
 * `Retry-After` with the next of `retryAfter`; 0 never answers.
 */
export async function startPushService(statuses: number[] = [], retryAfter: string[] = []) {
  const tls = selfSignedCertificate();
  const received: PushRequest[] = [];
  const waiters: Array<() => void> = [];
  const server: Server = createServer({ key: tls.key, cert: tls.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks), at: Date.now() });
      const status = statuses.shift() ?? 201;
      const wait = retryAfter.shift();
      if (status !== 0) {
        res.statusCode = status;
        if (wait !== undefined) res.setHeader('retry-after', wait);
        res.end();
      }
      waiters.splice(0).forEach((w) => w());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    origin: `https://127.0.0.1:${port}`,
    /** The CA a client must trust: the certificate itself. */
    ca: tls.cert,
    received,
    /** Resolves once `n` messages arrived (fails after `ms`). */
    async count(n: number, ms = 10_000) {
      const until = Date.now() + ms;
      while (received.length < n) {
        assert.ok(Date.now() < until, `${n} push messages within ${ms} ms (got ${received.length})`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 50);
        });
      }
    },
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

/** A browser's side of a subscription: its key pair and auth secret, and the decryption RFC 8291 gives it. */
export class TestBrowser {
  readonly #ecdh = createECDH('prime256v1');
  readonly #auth = randomBytes(16);
  readonly publicKey: Buffer;

  constructor() {
    this.publicKey = this.#ecdh.generateKeys();
  }

  /** `PushSubscription.toJSON()` for an endpoint. */
  subscription(endpoint: string) {
    return {
      endpoint,
      expirationTime: null,
      keys: { p256dh: this.publicKey.toString('base64url'), auth: this.#auth.toString('base64url') },
    };
  }

  /** RFC 8291 §3.4 and RFC 8188 §2: one record, its padding delimiter 0x02 (the last record). */
  decrypt(body: Buffer): string {
    const salt = body.subarray(0, 16);
    const recordSize = body.readUInt32BE(16);
    const idLength = body[20]!;
    const senderKey = body.subarray(21, 21 + idLength);
    const record = body.subarray(21 + idLength);
    assert.equal(idLength, 65, 'the keyid is the sender public key');
    assert.ok(record.length <= recordSize, 'one record');
    const shared = this.#ecdh.computeSecret(senderKey);
    const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), this.publicKey, senderKey]);
    const ikm = Buffer.from(hkdfSync('sha256', shared, this.#auth, keyInfo, 32));
    const cek = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16));
    const nonce = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12));
    const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
    decipher.setAuthTag(record.subarray(record.length - 16));
    const padded = Buffer.concat([decipher.update(record.subarray(0, record.length - 16)), decipher.final()]);
    let end = padded.length - 1;
    while (end >= 0 && padded[end] === 0) end--;
    assert.equal(padded[end], 0x02, 'the last record ends with the 0x02 delimiter');
    return padded.subarray(0, end).toString('utf8');
  }
}

/** The claims of a VAPID `Authorization: vapid t=<jwt>, k=<key>` header, once its ES256 signature checks with `publicKey`. */
export function verifyVapid(authorization: string | undefined, publicKey: string): { aud: string; exp: number; sub: string } {
  const match = /^vapid t=([\w-]+\.[\w-]+\.[\w-]+), k=([\w-]+)$/.exec(authorization ?? '');
  assert.ok(match, 'Authorization: vapid t=…, k=…');
  const [, jwt, k] = match as unknown as [string, string, string];
  assert.equal(k, publicKey, 'k is the VAPID public key');
  const [header, claims, signature] = jwt.split('.') as [string, string, string];
  assert.deepEqual(JSON.parse(Buffer.from(header, 'base64url').toString()), { typ: 'JWT', alg: 'ES256' });
  const raw = Buffer.from(publicKey, 'base64url');
  const key = createPublicKey({
    key: { kty: 'EC', crv: 'P-256', x: raw.subarray(1, 33).toString('base64url'), y: raw.subarray(33).toString('base64url') },
    format: 'jwk',
  });
  const valid = verify(
    'sha256',
    Buffer.from(`${header}.${claims}`),
    { key, dsaEncoding: 'ieee-p1363' },
    Buffer.from(signature, 'base64url'),
  );
  assert.ok(valid, 'the JWT is signed by the VAPID private key');
  return JSON.parse(Buffer.from(claims, 'base64url').toString()) as { aud: string; exp: number; sub: string };
}
