/**
 * The door of every entry that starts a run (`POST /api/chat` and a runtime's `chat`): the session and
 * message are checked, then the caller, before anything is stored or superseded. A stranger who knows a
 * session id must not be able to post into it: that would close its owner's card and stream the run back
 * to the stranger. Refusals are audited as the routes' are, and never quote the message.
 */
import { LIMITS, sessionIdSchema } from '../contract/schema.js';
import type { AuditLogger } from './audit.js';
import type { Authorize } from './authorization.js';
import { AskUserError } from './errors.js';
import { auditRefusal } from './route-errors.js';

/** What a chat entry is given, as the host received it: each field is checked here, not by the host. */
export interface ChatRequest {
  /** The host's request or context, as `authorize` receives it (Koa `Context`, Express `Request`, …). */
  caller: unknown;
  sessionId: unknown;
  message: unknown;
}

/** A checked chat request: the session the caller may act on, and a non-blank message. */
export interface AdmittedChat {
  sessionId: string;
  message: string;
}

/** Resolves the checked request, or rejects with an `AskUserError` (400 `invalid_request`, 403 `forbidden`). */
export type AdmitChat = (request: ChatRequest) => Promise<AdmittedChat>;

export interface ChatAdmissionDeps {
  /** The kit's policy; called with the caller as given. */
  authorize: () => Authorize<never>;
  audit: AuditLogger;
  now: () => number;
}

export function chatAdmission({ authorize, audit, now }: ChatAdmissionDeps): AdmitChat {
  const refuse = (err: AskUserError, sessionId?: string): never => {
    auditRefusal(audit, now, err, sessionId ? { sessionId } : {});
    throw err;
  };
  return async function admitChat({ caller, sessionId, message }) {
    const session = sessionIdSchema.safeParse(sessionId);
    if (!session.success) {
      const why = sessionId === undefined ? 'required' : session.error.issues[0]!.message;
      return refuse(new AskUserError('invalid_request', `sessionId: ${why}`, { field: 'sessionId' }));
    }
    if (typeof message !== 'string' || message.trim() === '' || message.length > LIMITS.chatMessage) {
      return refuse(
        new AskUserError('invalid_request', `message: a non-blank string of at most ${LIMITS.chatMessage} characters is required`, {
          field: 'message',
        }),
        session.data,
      );
    }
    if (!(await authorize()(caller as never, session.data))) {
      return refuse(new AskUserError('forbidden', 'This request is not allowed to act on that session.'), session.data);
    }
    return { sessionId: session.data, message };
  };
}
