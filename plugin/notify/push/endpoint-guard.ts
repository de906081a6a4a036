/**
 * Where the kit may send a push (contract §13). A subscription's endpoint is a URL the browser gave, so a
 * caller could name any host: the guard keeps the server from posting into its own network. An endpoint
 * must be `https:` without credentials, and every address its host resolves to must be public: loopback,
 * private, link-local, unique-local, unspecified, carrier-grade NAT, documentation, multicast and reserved
 * ranges are refused, and so are IPv4 addresses wrapped in IPv6 (mapped, NAT64, 6to4) when the address
 * inside is. It is checked when a browser subscribes and again before each send, and the agent it builds
 * checks the addresses the connection itself resolves, so a DNS answer that changes in between (a
 * rebinding) is refused too. `allowPrivateEndpoints` lifts the address rule (tests, a push service on
 * the host's own network); https stays required.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { Agent, type AgentOptions } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';

/** The longest endpoint kept; push services' own are a few hundred characters. */
export const MAX_ENDPOINT_LENGTH = 2048;

/** Every address a host name resolves to. */
export type ResolveAll = (hostname: string) => Promise<readonly LookupAddress[]>;

export interface EndpointGuardOptions {
  /** Let endpoints resolve to loopback and private addresses (tests, a push service on your own network). @default false */
  allowPrivateEndpoints?: boolean;
  /** For tests: how a host name is resolved. @default node:dns `lookup` with `all: true` */
  resolve?: ResolveAll;
}

/** Why an endpoint is refused: its form, its addresses, or a name that did not resolve (maybe for now). */
export type EndpointRefusal = 'malformed' | 'not_https' | 'private_address' | 'unresolved';

/** An endpoint the guard refuses. The message never quotes the endpoint: it is a capability of the browser's. */
export class EndpointRefusedError extends Error {
  readonly reason: EndpointRefusal;
  constructor(reason: EndpointRefusal, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'EndpointRefusedError';
    this.reason = reason;
  }
}

const defaultResolve: ResolveAll = (hostname) =>
  new Promise((resolve, reject) =>
    dnsLookup(hostname, { all: true, verbatim: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))),
  );

export class EndpointGuard {
  readonly allowPrivateEndpoints: boolean;
  readonly #resolve: ResolveAll;

  constructor(options: EndpointGuardOptions = {}) {
    this.allowPrivateEndpoints = options.allowPrivateEndpoints ?? false;
    this.#resolve = options.resolve ?? defaultResolve;
  }

  /** The endpoint's URL when its form is acceptable (https, no credentials, not too long); else a refusal. */
  parse(endpoint: string): URL {
    if (endpoint.length > MAX_ENDPOINT_LENGTH) throw new EndpointRefusedError('malformed', `longer than ${MAX_ENDPOINT_LENGTH} characters`);
    let url: URL;
    try {
      url = new URL(endpoint);
    } catch {
      throw new EndpointRefusedError('malformed', 'not a URL');
    }
    if (url.protocol !== 'https:') throw new EndpointRefusedError('not_https', 'must be an https: URL');
    if (url.username !== '' || url.password !== '') throw new EndpointRefusedError('malformed', 'must not carry credentials');
    return url;
  }

  /** Resolves when a push may go to `endpoint` now; throws an EndpointRefusedError otherwise. */
  async check(endpoint: string): Promise<void> {
    const url = this.parse(endpoint);
    if (this.allowPrivateEndpoints) return;
    // A literal address is never looked up by the connection either: this is its only check.
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const addresses = isIP(host) ? [host] : (await this.#lookup(host)).map((a) => a.address);
    if (addresses.some((address) => !isPublicAddress(address))) {
      throw new EndpointRefusedError('private_address', 'resolves to a loopback, private or reserved address');
    }
  }

  /**
   * A lookup for `net`/`tls` connections that fails when any address is refused: the addresses the
   * connection uses are the ones checked. Answers as Node asks, one address or all of them.
   */
  readonly connectLookup: LookupFunction = (hostname: string, options: LookupOptions, callback) => {
    this.#lookup(hostname).then(
      (addresses) => {
        if (!this.allowPrivateEndpoints && addresses.some((a) => !isPublicAddress(a.address))) {
          callback(new EndpointRefusedError('private_address', 'resolves to a loopback, private or reserved address'), '');
          return;
        }
        const family = options.family === 4 || options.family === 6 ? options.family : undefined;
        const usable = family === undefined ? addresses : addresses.filter((a) => a.family === family);
        if (usable.length === 0) {
          callback(new EndpointRefusedError('unresolved', 'has no address of the family asked'), '');
          return;
        }
        if (options.all) callback(null, [...usable]);
        else callback(null, usable[0]!.address, usable[0]!.family);
      },
      (err: unknown) => callback(err as NodeJS.ErrnoException, ''),
    );
  };

  /** An https agent whose connections resolve through `connectLookup`; `options` adds e.g. a test CA. */
  agent(options: AgentOptions = {}): Agent {
    return new Agent({ keepAlive: true, ...options, lookup: this.connectLookup });
  }

  async #lookup(hostname: string): Promise<readonly LookupAddress[]> {
    try {
      const addresses = await this.#resolve(hostname);
      if (addresses.length === 0) throw new Error('no addresses');
      return addresses;
    } catch (err) {
      throw new EndpointRefusedError('unresolved', 'its host could not be resolved', { cause: err });
    }
  }
}

/** One range of addresses as the bytes of its network and its prefix length. */
interface Range {
  bytes: readonly number[];
  bits: number;
}

const range = (text: string): Range => {
  const [address, bits] = text.split('/') as [string, string];
  return { bytes: [...addressBytes(address)!], bits: Number(bits) };
};

/** IPv4 ranges that are not the public internet (RFC 6890 and its updates). */
const REFUSED_V4 = [
  '0.0.0.0/8', // "this network", unspecified
  '10.0.0.0/8', // private
  '100.64.0.0/10', // carrier-grade NAT
  '127.0.0.0/8', // loopback
  '169.254.0.0/16', // link-local (cloud metadata services live here)
  '172.16.0.0/12', // private
  '192.0.0.0/24', // IETF protocol assignments
  '192.0.2.0/24', // documentation
  '192.88.99.0/24', // 6to4 relay anycast (deprecated)
  '192.168.0.0/16', // private
  '198.18.0.0/15', // benchmarking
  '198.51.100.0/24', // documentation
  '203.0.113.0/24', // documentation
  '224.0.0.0/4', // multicast
  '240.0.0.0/4', // reserved, and the broadcast address
].map(range);

/** IPv6 ranges that carry an IPv4 address, checked by that address: the offset of its 4 bytes. */
const WRAPPING_V6: ReadonlyArray<Range & { at: number }> = [
  { ...range('::ffff:0:0/96'), at: 12 }, // IPv4-mapped
  { ...range('64:ff9b::/96'), at: 12 }, // NAT64 (RFC 6052)
  { ...range('2002::/16'), at: 2 }, // 6to4
];

/** IPv6 ranges refused outright; anything outside global unicast (2000::/3) is refused too. */
const REFUSED_V6 = [
  '2001::/23', // IETF protocol assignments, Teredo among them
  '2001:db8::/32', // documentation
  '3fff::/20', // documentation (RFC 9637)
].map(range);
const GLOBAL_UNICAST_V6 = range('2000::/3');

/** True when `address` (IPv4 or IPv6 text, an IPv6 zone allowed) is a public unicast address. */
export function isPublicAddress(address: string): boolean {
  const bytes = addressBytes(address.split('%', 1)[0]!);
  if (!bytes) return false;
  if (bytes.length === 4) return !REFUSED_V4.some((r) => inRange(bytes, r));
  const wrapping = WRAPPING_V6.find((r) => inRange(bytes, r));
  if (wrapping) return isPublicAddress([...bytes.subarray(wrapping.at, wrapping.at + 4)].join('.'));
  return inRange(bytes, GLOBAL_UNICAST_V6) && !REFUSED_V6.some((r) => inRange(bytes, r));
}

function inRange(bytes: Uint8Array, { bytes: network, bits }: Range): boolean {
  if (bytes.length !== network.length) return false;
  for (let i = 0; i < bits; i += 8) {
    const mask = bits - i >= 8 ? 0xff : (0xff << (8 - (bits - i))) & 0xff;
    if ((bytes[i / 8]! & mask) !== (network[i / 8]! & mask)) return false;
  }
  return true;
}

/** An address's bytes (4 or 16), or undefined when it is neither form. */
function addressBytes(address: string): Uint8Array | undefined {
  const family = isIP(address);
  if (family === 4) return Uint8Array.from(address.split('.').map(Number));
  if (family !== 6) return undefined;
  // The URL parser writes any IPv6 form (an embedded dotted quad too) as hex groups around at most one `::`.
  const canonical = new URL(`http://[${address}]/`).hostname.slice(1, -1);
  const [headText, tailText] = canonical.split('::') as [string, string | undefined];
  const groups = (part: string | undefined) => (part ? part.split(':').map((g) => parseInt(g, 16)) : []);
  const head = groups(headText);
  const tail = groups(tailText);
  const zeros = tailText === undefined ? 0 : 8 - head.length - tail.length;
  const words = [...head, ...new Array<number>(zeros).fill(0), ...tail];
  const bytes = new Uint8Array(16);
  words.forEach((word, i) => {
    bytes[i * 2] = word >> 8;
    bytes[i * 2 + 1] = word & 0xff;
  });
  return bytes;
}
