// The stand-in page's logic on the widget bundle's public exports (served at /__e2e/ask-user-kit.js).
import { startChat, fetchPending, AskUserContinuedEvent } from '/__e2e/ask-user-kit.js';

const params = new URLSearchParams(location.search);
const sessionId =
  params.get('session') ?? localStorage.getItem('e2e-session') ?? `sess_${crypto.randomUUID().replace(/-/g, '')}`;
localStorage.setItem('e2e-session', sessionId);

const $ = (id) => document.querySelector(`[data-testid="${id}"]`);
const provider = document.querySelector('ask-user-provider');
provider.sessionId = sessionId;
$('session-id').textContent = sessionId;
const transcript = $('transcript');
const cards = new Map();

function line(className, text, testid) {
  const p = document.createElement('p');
  p.className = `msg ${className}`;
  if (testid) p.dataset.testid = testid;
  p.textContent = text;
  transcript.append(p);
  return p;
}

function showCard(request) {
  if (cards.has(request.id)) return cards.get(request.id);
  const card = document.createElement('ask-user-card');
  card.request = request;
  card.dataset.requestId = request.id;
  transcript.append(card);
  cards.set(request.id, card);
  return card;
}

async function consume(events) {
  let assistant;
  $('run-status').textContent = 'running';
  try {
    for await (const e of events) {
      if (e.event === 'message_delta') {
        assistant ??= line('assistant', '', 'assistant-text');
        assistant.textContent += e.data.text;
      } else if (e.event === 'user_input_required') {
        assistant = undefined;
        showCard(e.data);
      } else if (e.event === 'interaction_resolved') {
        cards.get(e.data.requestId)?.markResolved(e.data);
      } else if (e.event === 'tool_result') {
        assistant = undefined;
      } else if (e.event === 'error') {
        line('notice', `${e.data.code}: ${e.data.message}`, 'run-error');
      } else if (e.event === 'done') {
        $('run-status').textContent = e.data.reason;
      }
    }
  } catch (error) {
    line('notice', String(error), 'run-error');
    $('run-status').textContent = 'error';
  }
}

transcript.addEventListener(AskUserContinuedEvent.eventName, (e) => void consume(e.detail.events));

$('chat-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const message = $('message-input').value;
  if (!message.trim()) return;
  $('message-input').value = '';
  line('user', message, 'user-text');
  const result = await startChat({ sessionId, message });
  if (!result.ok) {
    line('notice', `${result.error.code}: ${result.error.message}`, 'run-error');
    return;
  }
  await consume(result.events);
});

try {
  const pending = await fetchPending(sessionId);
  if (pending) showCard(pending);
} catch (error) {
  line('notice', `pending: ${error.code ?? error}`, 'run-error');
}
document.body.dataset.ready = 'true';
