/**
 * `GET {prefix}/chat/stream` and `POST {prefix}/chat/stop` (contract §11): a client that lost its stream
 * picks it up from the session's event log, on any instance sharing the store; the stop button stops the
 * run wherever it runs. The follower (`LogFollower`) also replays a continue retried with its
 * `Idempotency-Key` (continue-route.ts).
 */
import { z } from 'zod';
import { sessionIdSchema } from '../contract/schema.js';
import { frameId, parseFrameId, type EventLog, type LogFrame, type LogPosition } from '../store/event-log.js';
import { AskUserError } from './errors.js';
import type { IdentifiedFrame, SseSink } from './host.js';
import { storeError, type AuditContext } from './route-errors.js';
import { bodyError, NO_STORE, querySessionId, type RouteShared } from './route-shared.js';
import type { RouteIo, RouteRequest, RouteResult, RoutesDeps } from './route-types.js';
import { crossSiteError } from './same-origin.js';

const stopBodySchema = z.object({ sessionId: sessionIdSchema }).strict();

/**
 * Writes a session's logged frames to one client: those after its position, then live ones as they are
 * appended, until a `done` that is the last frame of the log (a `done paused` only once the run is no
 * longer in flight: its card may have been answered already), or the client leaving. A follower costs no
 * store traffic while it waits (it is woken by the log's watch); one that hears nothing for the whole
 * replay window ends without `done` (its run's runner died with no successor, or the run waits that long):
 * its client reconnects and is told where it stands (204, or 410 once the log let the run go).
 */
export class LogFollower {
  readonly #log: EventLog;
  readonly #sessionId: string;
  readonly #idleEndMs: number;
  readonly #inFlight: (sessionId: string) => Promise<boolean>;
  #wake: (() => void) | undefined;
  #woken = false;
  #unwatch: (() => void) | undefined;

  constructor(
    log: EventLog,
    sessionId: string,
    options: { idleEndMs?: number; inFlight?: ((sessionId: string) => Promise<boolean>) | undefined } = {},
  ) {
    this.#log = log;
    this.#sessionId = sessionId;
    this.#idleEndMs = options.idleEndMs ?? log.limits.windowMs;
    // Without a runner to ask, a paused run's `done` ends the follow as any `done` does.
    this.#inFlight = options.inFlight ?? (async () => false);
  }

  /** Watch before the first read, so no append between the read and the watch is missed. */
  async start(): Promise<void> {
    this.#unwatch = await this.#log.watch(this.#sessionId, () => {
      this.#woken = true;
      this.#wake?.();
    });
  }

  stopWatching(): void {
    this.#unwatch?.();
    this.#unwatch = undefined;
  }

  /** Send `first` (already read), then follow from the last frame sent. Ends `sse`. */
  async follow(sse: SseSink, first: readonly LogFrame[], after: LogPosition | undefined): Promise<void> {
    let position = after;
    try {
      let frames = first;
      for (;;) {
        for (const frame of frames) sendLogged(sse, frame);
        const last = frames.at(-1);
        if (last) position = last;
        if (sse.closed) return;
        if (last?.event === 'done' && !(isPaused(last) && (await this.#inFlight(this.#sessionId)))) return;
        if (!(await this.#waitForFrames(sse))) return;
        const read = await this.#log.read(this.#sessionId, position);
        // Dropped while we followed (a run past its bounds): the client reconnects and is told 410.
        if (read.kind === 'expired') return;
        frames = read.frames;
      }
    } finally {
      this.stopWatching();
      sse.end();
    }
  }

  /** True when frames may have come; false when the client left or nothing came for `idleEndMs`. */
  async #waitForFrames(sse: SseSink): Promise<boolean> {
    if (!this.#woken) {
      const woke = await new Promise<boolean>((resolve) => {
        const done = (value: boolean) => {
          clearTimeout(timer);
          sse.signal.removeEventListener('abort', onAbort);
          this.#wake = undefined;
          resolve(value);
        };
        const onAbort = () => done(false);
        const timer = setTimeout(() => done(false), this.#idleEndMs);
        timer.unref?.();
        sse.signal.addEventListener('abort', onAbort, { once: true });
        this.#wake = () => done(true);
        if (sse.signal.aborted) done(false);
      });
      if (!woke) return false;
    }
    this.#woken = false;
    return !sse.closed;
  }
}

const PAUSED = JSON.stringify({ reason: 'paused' });
const isPaused = (frame: LogFrame) => frame.data === PAUSED;

/** A logged frame on a client's stream: the same bytes as when it was first sent. */
export function sendLogged(sse: SseSink, frame: LogFrame): void {
  const identified: IdentifiedFrame = { id: frameId(frame), event: frame.event as IdentifiedFrame['event'], data: frame.data };
  if (sse.sendFrame) sse.sendFrame(identified);
  else sse.send(identified.event, JSON.parse(frame.data) as never);
}

export function streamRoutes(deps: RoutesDeps, { refuseUncached, checkAuthorized }: RouteShared) {
  const { coordinator, host, allowedOrigins } = deps;
  const log = coordinator.log;
  const inFlight = host.inFlight?.bind(host);

  async function followStream(req: RouteRequest, io: RouteIo): Promise<RouteResult> {
    let known: AuditContext = {};
    let follower: LogFollower | undefined;
    try {
      const sessionId = querySessionId(req);
      known = { sessionId };
      const rawId = req.header('last-event-id') ?? req.query('lastEventId');
      const after = rawId === undefined || rawId === '' ? undefined : typeof rawId === 'string' ? parseFrameId(rawId) : undefined;
      if (rawId !== undefined && rawId !== '' && !after) {
        throw new AskUserError('invalid_request', 'Last-Event-ID: expected <runId>.<seq> as the stream sent it', { field: 'lastEventId' });
      }
      await checkAuthorized(io, sessionId);
      follower = new LogFollower(log, sessionId, { inFlight });
      await follower.start().catch(storeError);
      const read = await log.read(sessionId, after).catch(storeError);
      if (read.kind === 'expired') {
        throw new AskUserError('replay_expired', 'The stream is no longer kept from that id; reload the session (pending card, history).');
      }
      let frames = read.frames;
      // Nothing after the id: the log's last frame is the one the client has (or a later one of its run).
      const lastLogged = frames.at(-1) ?? (after ? await log.last(sessionId).catch(storeError) : undefined);
      const open = lastLogged !== undefined && lastLogged.event !== 'done';
      // The runner knows best (a run whose first frame is not logged yet is in flight too); else the log says.
      const live = inFlight ? await inFlight(sessionId).catch(storeError) : open;
      let from = after;
      if (!after) {
        // Without an id: the run in flight from its first kept frame (a paused run whose card was just
        // answered goes on); a finished run's frames are not replayed, only what comes after them.
        const goesOn = lastLogged !== undefined && (open || (live && isPaused(lastLogged)));
        frames = goesOn ? frames.filter((frame) => frame.runId === lastLogged.runId) : [];
        if (!goesOn && lastLogged) from = lastLogged;
      }
      // A run paused on a card is not in flight: GET pending restores the card.
      if (!live && (frames.length === 0 || !after)) {
        follower.stopWatching();
        return { status: 204, headers: NO_STORE, body: null };
      }
      const sse = io.openSse();
      // The follow outlives this request's handler only as long as its client stays.
      await follower.follow(sse, frames, from);
      return 'streamed';
    } catch (err) {
      follower?.stopWatching();
      return refuseUncached(err, known);
    }
  }

  async function stopRun(req: RouteRequest, io: RouteIo): Promise<RouteResult> {
    let known: AuditContext = {};
    try {
      const crossSite = crossSiteError(req.header('origin'), req.header('sec-fetch-site'), req.ownOrigin, allowedOrigins);
      if (crossSite) throw crossSite;
      const parsed = stopBodySchema.safeParse(await req.readJson());
      if (!parsed.success) throw bodyError(parsed.error);
      const { sessionId } = parsed.data;
      known = { sessionId };
      await checkAuthorized(io, sessionId);
      const result = host.stop ? await host.stop(sessionId).catch(storeError) : { stopped: false };
      return { status: 200, headers: NO_STORE, body: { stopped: result.stopped } };
    } catch (err) {
      return refuseUncached(err, known);
    }
  }

  return { followStream, stopRun };
}
