import { describe, it } from './helpers/bdd.js';
import {
  CHAT_EVENT_NAMES,
  isChatEventName,
  isPendingInteraction,
  isUserInputRequired,
  parseChatEvent,
  toChatEvent,
} from '../../widget/chat-events.js';
import { deepEqual, equal } from './helpers/assert.js';
import { userInputRequired } from './helpers/sse-fixtures.js';

describe('chat-events', () => {
  it('knows exactly the six contract events', () => {
    deepEqual([...CHAT_EVENT_NAMES].sort(), [
      'done',
      'error',
      'interaction_resolved',
      'message_delta',
      'tool_result',
      'user_input_required',
    ]);
  });

  it('does not take inherited object keys for event names', () => {
    for (const name of ['toString', 'constructor', '__proto__', 'hasOwnProperty', '', 'message']) {
      equal(isChatEventName(name), false, name);
      equal(parseChatEvent(name, '{"text":"x","reason":"completed"}'), null, name);
    }
  });

  it('maps parsed data to a typed event, or null', () => {
    deepEqual(toChatEvent('done', { reason: 'paused' }), { event: 'done', data: { reason: 'paused' } });
    equal(toChatEvent('done', null), null);
    equal(toChatEvent('done', ['completed']), null);
    equal(toChatEvent(undefined, { reason: 'paused' }), null);
  });

  it('returns null for malformed JSON instead of throwing', () => {
    for (const raw of ['', '{', '{"reason":}', 'undefined', "{'reason':'done'}"]) equal(parseChatEvent('done', raw), null, raw);
  });

  it('checks user_input_required by the four fields of docs/protocol.md §3', () => {
    equal(isUserInputRequired(userInputRequired), true);
    equal(isUserInputRequired({ id: 'a', toolCallId: 'b', title: 'c', mode: 'd' }), true);
    for (const field of ['id', 'toolCallId', 'title', 'mode']) {
      equal(isUserInputRequired({ ...userInputRequired, [field]: undefined }), false, field);
      equal(isUserInputRequired({ ...userInputRequired, [field]: null }), false, field);
      equal(isUserInputRequired({ ...userInputRequired, [field]: ['x'] }), false, field);
    }
  });

  it('takes a pending interaction only with status pending or expired', () => {
    equal(isPendingInteraction({ ...userInputRequired, status: 'pending' }), true);
    equal(isPendingInteraction({ ...userInputRequired, status: 'expired' }), true);
    equal(isPendingInteraction({ ...userInputRequired, status: 'answered' }), false);
    equal(isPendingInteraction({ ...userInputRequired }), false);
    equal(isPendingInteraction({ status: 'pending' }), false);
  });
});
