/** widget/receipt.ts: every refusal of docs/protocol.md §4 leads to one thing the user can do. */
import { describe, it } from './helpers/bdd.js';
import { deepEqual, equal } from './helpers/expect.js';
import { normalizeReceipt, receiptForAnswer, selectionLabels, type AskUserReceipt } from '../../widget/receipt.js';
import { failureFromThrown, failureOutcome } from '../../widget/failure-outcome.js';

const outcome = (status: number, code?: string, extra: Record<string, unknown> = {}) =>
  failureOutcome({ status, error: code ? { code, message: 'm', ...extra } : undefined });

describe('failureOutcome', () => {
  it('409 already_answered becomes the first answer receipt', () => {
    deepEqual(outcome(409, 'already_answered', { receipt: { requestId: 'r', toolCallId: 't', status: 'answered', at: 'T' } }), {
      kind: 'receipt',
      receipt: { kind: 'elsewhere', at: 'T', late: true },
    });
    deepEqual(outcome(409, 'already_answered', { receipt: { status: 'expired', at: 'T' } }), {
      kind: 'receipt',
      receipt: { kind: 'expired', at: 'T', late: true },
    });
    deepEqual(outcome(409, 'already_answered', { receipt: { status: 'bogus' } }), {
      kind: 'receipt',
      receipt: { kind: 'elsewhere', at: undefined, late: true },
    });
  });

  it('maps the terminal codes to receipts', () => {
    equal(outcome(410, 'expired').kind === 'receipt' && (outcome(410, 'expired') as { receipt: { kind: string } }).receipt.kind, 'expired');
    deepEqual(outcome(409, 'not_resumable'), { kind: 'receipt', receipt: { kind: 'not-resumable' } });
    deepEqual(outcome(404, 'not_found'), { kind: 'receipt', receipt: { kind: 'gone' } });
  });

  it('maps the recoverable codes to errors, retry only where retrying helps', () => {
    const pick = (o: ReturnType<typeof failureOutcome>) => (o.kind === 'error' ? [o.key, o.retry] : o.kind);
    deepEqual(pick(outcome(503, 'store_unavailable')), ['errorUnavailable', true]);
    deepEqual(pick(outcome(422, 'invalid_answer')), ['errorInvalidAnswer', false]);
    deepEqual(pick(outcome(400, 'invalid_request')), ['errorInvalidRequest', false]);
    deepEqual(pick(outcome(403, 'forbidden')), ['errorForbidden', false]);
    deepEqual(pick(outcome(403, 'session_mismatch')), ['errorForbidden', false]);
    deepEqual(pick(outcome(0, 'network_error')), ['errorNetwork', true]);
    deepEqual(pick(outcome(418, 'teapot')), ['errorUnknown', true]);
  });

  it('client-made codes fall back on the HTTP status', () => {
    deepEqual(outcome(410, 'http_error'), { kind: 'receipt', receipt: { kind: 'expired' } });
    equal((outcome(502, 'http_error') as { key: string }).key, 'errorUnavailable');
    equal((outcome(0, 'aborted') as { key: string }).key, 'errorNetwork');
  });

  it('422 keeps the field the server named', () => {
    equal((outcome(422, 'invalid_answer', { field: 'selections' }) as { field?: string }).field, 'selections');
    equal((outcome(422, 'invalid_answer', { field: 'other' }) as { field?: string }).field, undefined);
  });

  it('422 on a card of several questions names the question and its field', () => {
    const o = outcome(422, 'invalid_answer', { field: 'answers[2].selections' }) as { field?: string; question?: number };
    deepEqual([o.field, o.question], ['selections', 2]);
    equal((outcome(422, 'invalid_answer', { field: 'answers' }) as { field?: string }).field, undefined, 'the whole body names no field');
  });
});

describe('receipt helpers', () => {
  it('a thrown error is a status-0 network failure', () => {
    deepEqual(failureFromThrown(new TypeError('x')), { status: 0, error: { code: 'network_error', message: 'x' } });
  });

  it('receiptForAnswer keeps what was sent; a cancel keeps nothing', () => {
    deepEqual(receiptForAnswer({ selections: ['a'], customInput: 'b', cancelled: false }, 'T'), {
      kind: 'answered',
      at: 'T',
      selections: ['a'],
      customInput: 'b',
    });
    deepEqual(receiptForAnswer({ selections: ['a'], customInput: 'b', cancelled: true }, 'T'), { kind: 'cancelled', at: 'T' });
  });

  it('selectionLabels maps ids to labels, unknown ids to themselves', () => {
    deepEqual(selectionLabels({ options: [{ id: 'a', label: 'A' }] }, ['a', 'z']), ['A', 'z']);
  });
});

describe('normalizeReceipt', () => {
  const read = (value: unknown) => normalizeReceipt(value as AskUserReceipt);

  it('keeps a closed question of each kind and its known fields', () => {
    for (const kind of ['answered', 'cancelled', 'expired', 'superseded'] as const) equal(read({ kind })?.kind, kind, kind);
    deepEqual(read({ kind: 'answered', at: 'T', selections: ['a'], customInput: 'x', runEnded: 'paused', late: true, extra: 1 }), {
      kind: 'answered',
      at: 'T',
      selections: ['a'],
      customInput: 'x',
      answers: undefined,
      runEnded: 'paused',
    });
  });

  it('refuses a kind only a live card reaches, or none', () => {
    for (const value of [{ kind: 'elsewhere' }, { kind: 'gone' }, { kind: 'toString' }, {}, null, 'answered', []])
      equal(read(value), undefined);
  });

  it('drops a field of the wrong type, and a §9.2 answer without its selections', () => {
    deepEqual(
      read({
        kind: 'answered',
        at: 5,
        selections: 'a',
        customInput: 3,
        runEnded: 'toString',
        answers: [{ id: 'q', selections: ['a'] }, { id: 'r' }, 7],
      }),
      {
        kind: 'answered',
        at: undefined,
        selections: undefined,
        customInput: undefined,
        answers: [{ id: 'q', selections: ['a'] }],
        runEnded: undefined,
      },
    );
  });
});
