/** What every demo server gives its caller, whichever framework serves it. */
import type { RequestListener } from 'node:http';
import type { AskUserKit } from 'ask-user-kit/plugin';
import type { AgentLoop } from 'ask-user-kit/plugin/loop';
import type { DemoServer } from '../demo-core.js';
import type { TraceBook } from '../trace.js';

export interface DemoApp {
  server: DemoServer;
  /** For `http.createServer(listener)`: the page and the API on one port. */
  listener: RequestListener;
  /** Typed for whichever framework serves it. */
  kit: AskUserKit<never>;
  loop: AgentLoop;
  /** The developer trace, when `trace` is on. */
  trace: TraceBook | undefined;
  close(): Promise<void>;
}
