/**
 * The demo's offline assistant: a deterministic stand-in for a real model, answering Chat Completions
 * requests. It reads the history it is sent — the same history a real model would get — so what it says
 * after an answer is evidence of what actually reached it: the chosen option ids and labels, the typed
 * text, or the cancellation.
 */
import type { AskUserArgs } from 'ask-user-kit/plugin';
import type { ChatRequestBody, ScriptedTurn } from './scripted-turn.js';
import { langOf, questionFor, topicOf, TEST_SUITES, type Lang, type TestSuite, type Topic } from './questions.js';
import { DELETE_BRANCH, DEPLOY_PREVIEW, deployCalls, deployIntro, deployPlanOf, replyToDeploy } from './deploy.js';

export const LIST_TEST_SUITES = 'list_test_suites';
/** The demo's own MCP server's tool (demo/mcp/meeting-server.ts), which asks the user through elicitation. */
export const BOOK_MEETING = 'book_meeting';
/** Its other tool, which asks the user to open a sign-in page (URL-mode elicitation). */
export const CONNECT_CALENDAR = 'connect_calendar';

type Message = ChatRequestBody['messages'][number];
interface CallInfo {
  id: string;
  function: { name: string; arguments: string };
}

const textOf = (m: Message | undefined): string => {
  const c = m?.content;
  if (typeof c === 'string') return c;
  if (Array.isArray(c)) return c.map((p) => (typeof p?.text === 'string' ? p.text : '')).join('');
  return '';
};

function findCall(messages: Message[], toolCallId: string): CallInfo | undefined {
  return turnOf(messages, toolCallId)?.find((c) => c.id === toolCallId);
}

/** Every call of the assistant turn that made `toolCallId`. */
function turnOf(messages: Message[], toolCallId: string): CallInfo[] | undefined {
  for (const m of messages) {
    const calls = (m.tool_calls as CallInfo[] | undefined) ?? [];
    if (calls.some((c) => c.id === toolCallId)) return calls;
  }
  return undefined;
}

/** Tools whose calls wait for the user's approval (§12): their turn is answered as a whole. */
const NEEDS_APPROVAL = new Set([DEPLOY_PREVIEW, DELETE_BRANCH]);

const offers = (body: ChatRequestBody, name: string) => (body.tools ?? []).some((t) => t.function?.name === name);
const parse = <T>(text: string): T | undefined => {
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
};

export interface AssistantOptions {
  /** Pause between streamed pieces. @default 12 */
  pieceDelayMs?: number;
}

export function createAssistant(options: AssistantOptions = {}) {
  const { pieceDelayMs = 12 } = options;
  const say = (text: string): ScriptedTurn => ({ text, chunkSize: 3, pieceDelayMs });
  const ask = (intro: string, args: AskUserArgs): ScriptedTurn => ({
    text: intro,
    toolCalls: [{ name: 'ask_user', arguments: args as unknown as Record<string, unknown> }],
    chunkSize: 3,
    pieceDelayMs,
  });

  return function respond(body: ChatRequestBody): ScriptedTurn {
    const messages = body.messages ?? [];
    const last = messages.at(-1);
    const lastUser = [...messages].reverse().find((m) => m.role === 'user');
    const lang: Lang = langOf(textOf(lastUser));
    const zh = lang === 'zh';

    if (last?.role === 'tool') {
      // A turn with calls that needed approval: one line per call, quoting what came back (a URL, a denial's reason).
      const turn = turnOf(messages, String(last.tool_call_id)) ?? [];
      if (turn.some((c) => NEEDS_APPROVAL.has(c.function.name))) {
        const results = new Map(messages.filter((m) => m.role === 'tool').map((m) => [String(m.tool_call_id), textOf(m)]));
        return say(
          replyToDeploy(
            turn.map((c) => ({ name: c.function.name, content: results.get(c.id) ?? '' })),
            lang,
          ),
        );
      }
      const call = findCall(messages, String(last.tool_call_id));
      if (call?.function.name === LIST_TEST_SUITES) {
        const suites = parse<{ suites: TestSuite[] }>(textOf(last))?.suites ?? TEST_SUITES;
        return ask(zh ? `找到 ${suites.length} 组测试。` : `I found ${suites.length} test suites.`, questionFor('tests', lang, suites));
      }
      if (call?.function.name === 'ask_user') {
        const question = parse<AskUserArgs>(call.function.arguments);
        return say(replyToAnswer(textOf(last), question, lang));
      }
      // Any other tool (the MCP meeting server's, say): repeat what it returned, so a reader sees it arrived.
      const said = textOf(last).trim();
      return say(said ? (zh ? `工具返回：${said}` : `The tool said: ${said}`) : zh ? '工具已执行完毕。' : 'The tool has finished.');
    }

    const userText = textOf(lastUser);
    if (!offers(body, 'ask_user')) {
      return say(
        zh
          ? `（此会话不允许追问）我会直接按默认方式处理：“${userText}”。`
          : `(Asking is not allowed here.) I will go with the defaults for: “${userText}”.`,
      );
    }
    const topic = topicOf(userText);
    // §12: the deploy tools need the user's approval; the kit shows the card, the model only calls them.
    if (topic === 'deploy' && offers(body, DEPLOY_PREVIEW)) {
      const plan = deployPlanOf(userText);
      const toolCalls = deployCalls(plan, (name) => offers(body, name), LIST_TEST_SUITES);
      return { text: deployIntro(plan, lang), toolCalls, chunkSize: 3, pieceDelayMs };
    }
    // Topics a tool of their own answers, when the request offers it: the tool is called first.
    const byTool: Partial<Record<Topic, [string, string, string]>> = {
      meeting: [BOOK_MEETING, '我请会议服务器来预约。', 'Let me ask the meeting server to book it.'],
      calendar: [CONNECT_CALENDAR, '我请日历服务器来连接。', 'Let me ask the calendar server to connect it.'],
      tests: [LIST_TEST_SUITES, '先看看项目里有哪些测试。', 'Let me look at the test suites first.'],
    };
    const viaTool = byTool[topic];
    if (viaTool && offers(body, viaTool[0])) {
      return { text: zh ? viaTool[1] : viaTool[2], toolCalls: [{ name: viaTool[0], arguments: {} }], chunkSize: 3, pieceDelayMs };
    }
    const intros: Record<Lang, string> = { zh: '开始之前，我需要你确认一件事。', en: 'Before I start, I need one thing from you.' };
    const several: Record<Lang, string> = {
      zh: '做发布计划之前，有三件事要你定。',
      en: 'Three things to settle before I plan the release.',
    };
    return ask(topic === 'plan' ? several[lang] : intros[lang], questionFor(topic, lang));
  };
}

interface ToolAnswer {
  selections?: string[];
  customInput?: string;
  cancelled?: boolean;
  reason?: 'expired' | 'superseded';
  /** §9.2: one per question. */
  answers?: Array<{ id: string; selections: string[]; customInput: string }>;
}

/** One line per question of a §9.2 card: what came back for it, by the question's header or title. */
function replyToAnswers(answers: NonNullable<ToolAnswer['answers']>, question: AskUserArgs | undefined, zh: boolean): string {
  const lines = answers.map((a) => {
    const q = question?.questions?.find((x) => x.id === a.id);
    const name = q?.header ?? q?.title ?? a.id;
    const labels = a.selections.map((id) => q?.options?.find((o) => o.id === id)?.label ?? id);
    const value = [...labels, a.customInput.trim()].filter(Boolean).join(zh ? '；' : '; ');
    return `${name}: ${value || (zh ? '（未填）' : '(left blank)')}`;
  });
  return (zh ? '收到，按这个计划来：\n' : 'Got it, planning with:\n') + lines.join('\n');
}

/** What the assistant says once the ToolResult is in: it names what it received, so a reader can check. */
export function replyToAnswer(content: string, question: AskUserArgs | undefined, lang: Lang): string {
  const zh = lang === 'zh';
  const answer = parse<ToolAnswer>(content);
  if (!answer) return zh ? '我没能读懂这个结果，先停在这里。' : 'I could not read that result, so I will stop here.';
  if (!answer.cancelled && answer.answers) return replyToAnswers(answer.answers, question, zh);
  if (answer.cancelled) {
    if (answer.reason === 'expired')
      return zh
        ? '这个问题已超时未答，我先停下，需要时请重新发起。'
        : 'That question timed out, so I stopped. Ask again whenever you like.';
    if (answer.reason === 'superseded') return zh ? '上一个问题已被新消息替代。' : 'The earlier question was replaced by your new message.';
    return zh ? '好的，你取消了这个问题，我停在这里，不再继续这项任务。' : 'Understood, you cancelled; I will stop this task here.';
  }
  const selections = answer.selections ?? [];
  const custom = (answer.customInput ?? '').trim();
  const labelOf = (id: string) => question?.options?.find((o) => o.id === id)?.label ?? id;
  const picked = selections.map((id) => (zh ? `「${labelOf(id)}」(${id})` : `“${labelOf(id)}” (${id})`)).join(zh ? '、' : ', ');
  const extra = custom ? (zh ? `，另外你补充了：“${custom}”` : `, and you added: “${custom}”`) : '';
  switch (question?.mode) {
    case 'date':
      return zh
        ? `好的，发布日期定为 ${custom}。我会倒排计划：提前一周冻结代码，提前三天完成回归，${custom} 当天发布并公告。`
        : `Release day is ${custom}. Working back from it: code freeze a week before, full regression three days before, ship and announce on ${custom}.`;
    case 'directory':
      return zh ? `好的，输出会写到 ${custom}/ 下。` : `Got it, the output goes under ${custom}/.`;
    case 'number':
      return zh ? `好的，按 ${custom} 个实例准备。` : `Okay, I will prepare ${custom} instances.`;
    case 'text':
      return zh ? `收到，你给的名称与描述是：“${custom}”。` : `Got it, name and description: “${custom}”.`;
    case 'toggle':
      return zh ? `好的，将启用：${picked}${extra}。` : `Okay, enabling ${picked}${extra}.`;
    case 'multiple':
      return selections.length === 0 && !custom
        ? zh
          ? '你没有选择任何测试，我这次就不跑了。'
          : 'You picked no tests, so I will not run any this time.'
        : zh
          ? `收到，你选了${picked || '（无选项）'}${extra}。我会按这个顺序执行并汇报结果。`
          : `Got it, you chose ${picked || '(no option)'}${extra}. I will run them in that order and report back.`;
    default:
      return selections.length === 0
        ? zh
          ? `收到你的说明：“${custom}”，我会按它来。`
          : `Got your note: “${custom}”; I will follow it.`
        : zh
          ? `收到，你选择了${picked}${extra}。我会按这个方式继续。`
          : `Got it, you chose ${picked}${extra}. I will proceed that way.`;
  }
}
