/**
 * What the offline assistant asks for each kind of request, in both languages. Data, not logic: the
 * assistant picks an entry by keyword and sends it as the `ask_user` arguments.
 */
import type { AskUserArgs } from 'ask-user-kit/plugin';

export type Lang = 'zh' | 'en';
export type Topic =
  'meeting' | 'calendar' | 'plan' | 'deploy' | 'release' | 'tests' | 'directory' | 'count' | 'features' | 'naming' | 'approach';

/** Keywords per topic, checked in this order (the first match wins). */
export const TOPIC_KEYWORDS: ReadonlyArray<[Topic, RegExp]> = [
  ['meeting', /meeting|book a|schedule a|会议|预约|约个会/i],
  ['calendar', /calendar|日历/i],
  ['plan', /release plan|rollout plan|roll-?out|发布计划|发布方案|上线方案/i],
  // §12: calls deploy_preview (and for a clean-up delete_branch), which wait for the user's approval.
  ['deploy', /deploy|部署/i],
  ['tests', /\btests?\b|test suites?|测试|用例/i],
  ['release', /release|ship|launch|deadline|发布|上线|日期|排期/i],
  ['directory', /director(y|ies)|folder|\bpath\b|目录|文件夹|路径/i],
  ['count', /how many|how much|\bcount\b|number of|多少|几个|几台|数量/i],
  ['features', /enable|disable|toggle|switch|feature flag|开关|启用|关闭|功能/i],
  ['naming', /\bname\b|describe|description|名字|名称|命名|描述/i],
];

export function topicOf(text: string): Topic {
  return TOPIC_KEYWORDS.find(([, re]) => re.test(text))?.[0] ?? 'approach';
}

export const langOf = (text: string): Lang => (/[\u3400-\u9fff]/.test(text) ? 'zh' : 'en');

export interface TestSuite {
  id: string;
  label: string;
  description: string;
}

/** What the demo's `list_test_suites` tool returns; the tests question is built from it. */
export const TEST_SUITES: TestSuite[] = [
  { id: 'unit', label: 'Unit', description: 'fast, no I/O' },
  { id: 'integration', label: 'Integration', description: 'SQLite and Redis stores' },
  { id: 'browser', label: 'Browser', description: 'the card in Chromium' },
  { id: 'e2e', label: 'End-to-end', description: 'page, server and model together' },
];

export function questionFor(topic: Topic, lang: Lang, suites: TestSuite[] = TEST_SUITES): AskUserArgs {
  const zh = lang === 'zh';
  switch (topic) {
    case 'plan':
      return planQuestions(lang);
    case 'meeting':
      // Without the MCP meeting server's tool the assistant asks for the day itself.
      return { title: zh ? '会议定在哪一天？' : 'Which day should the meeting be?', mode: 'date' };
    case 'calendar':
      // Without the MCP server's connect_calendar the assistant asks which one instead.
      return {
        title: zh ? '要连接哪个日历？' : 'Which calendar should I connect?',
        mode: 'single',
        options: [
          { id: 'work', label: zh ? '工作日历' : 'Work calendar', recommended: true },
          { id: 'personal', label: zh ? '个人日历' : 'Personal calendar' },
        ],
      };
    case 'deploy':
      // Without the deploy_preview tool the assistant asks where it would have deployed.
      return {
        title: zh ? '部署到哪个环境？' : 'Which environment should it go to?',
        mode: 'single',
        options: [
          { id: 'preview', label: zh ? '预览环境' : 'Preview', recommended: true },
          { id: 'staging', label: zh ? '预发环境' : 'Staging' },
        ],
      };
    case 'release':
      return {
        title: zh ? '这次发布定在哪一天？' : 'Which day should the release go out?',
        description: zh
          ? '我会按这个日期倒排冻结、回归和公告。'
          : 'I will plan the freeze, regression run and announcement back from this date.',
        mode: 'date',
        submitLabel: zh ? '确定日期' : 'Set date',
      };
    case 'tests':
      return {
        title: zh ? '这次要跑哪些测试？' : 'Which tests should I run?',
        description: zh ? '可以多选；有特殊要求写在“其他说明”里。' : 'Pick any; put special requests in “Other”.',
        mode: 'multiple',
        options: suites.map((s) => ({
          id: s.id,
          label: s.label,
          description: s.description,
          ...(s.id === 'unit' ? { recommended: true } : {}),
        })),
        allowCustom: true,
        submitLabel: zh ? '开始测试' : 'Run them',
      };
    case 'directory':
      return {
        title: zh ? '输出写到哪个目录？' : 'Which directory should the output go to?',
        description: zh ? '相对于项目根目录的路径，例如 build/reports。' : 'A path relative to the project root, e.g. build/reports.',
        mode: 'directory',
      };
    case 'count':
      return {
        title: zh ? '需要多少个实例？' : 'How many instances do you need?',
        description: zh ? '填写一个数字。' : 'Enter a number.',
        mode: 'number',
      };
    case 'features':
      return {
        title: zh ? '要启用哪些功能？' : 'Which features should be enabled?',
        description: zh ? '至少启用一项。' : 'Enable at least one.',
        mode: 'toggle',
        options: [
          { id: 'dark-mode', label: zh ? '深色模式' : 'Dark mode' },
          { id: 'beta-search', label: zh ? '新版搜索' : 'New search', recommended: true },
          { id: 'audit-log', label: zh ? '审计日志' : 'Audit log' },
        ],
      };
    case 'naming':
      return {
        title: zh ? '给它起个名字，并简单描述一下。' : 'What should it be called? Add a short description.',
        mode: 'text',
        submitLabel: zh ? '提交' : 'Submit',
      };
    case 'approach':
      return {
        title: zh ? '请选择执行方式' : 'How should I proceed?',
        description: zh ? '不同方式会影响接下来的工具权限。' : 'The choice decides which tools I may use next.',
        mode: 'single',
        options: [
          {
            id: 'safe',
            label: zh ? '先分析' : 'Analyse first',
            description: zh ? '只阅读并给出方案' : 'Read only and propose a plan',
            recommended: true,
          },
          {
            id: 'implement',
            label: zh ? '直接实现' : 'Implement now',
            description: zh ? '开始修改工作区' : 'Start changing the workspace',
          },
        ],
        allowCustom: true,
        submitLabel: zh ? '继续' : 'Continue',
      };
  }
}

/** §9.2: three questions that decide one step, on one card. */
function planQuestions(lang: Lang): AskUserArgs {
  const zh = lang === 'zh';
  return {
    title: zh ? '发布计划：三个问题' : 'Release plan: three questions',
    description: zh ? '一次答完，我就开始安排。' : 'Answer all three and I will start.',
    submitLabel: zh ? '按此发布' : 'Plan it',
    questions: [
      {
        id: 'strategy',
        header: zh ? '策略' : 'Strategy',
        title: zh ? '用哪种发布方式？' : 'How should it roll out?',
        mode: 'single',
        // Previews (§9.3) to compare the plans side by side, in the Markdown subset.
        options: [
          {
            id: 'canary',
            label: zh ? '金丝雀：先 5%' : 'Canary: 5% first',
            recommended: true,
            preview: zh
              ? '**金丝雀**\n\n1. 5% 流量，观察 30 分钟\n2. 50%，再观察 30 分钟\n3. 全量\n\n```\nrollout --canary 5 --step 45 --wait 30m\n```'
              : '**Canary**\n\n1. 5% of traffic, watch for 30 minutes\n2. 50%, watch again\n3. everyone\n\n```\nrollout --canary 5 --step 45 --wait 30m\n```',
          },
          {
            id: 'blue-green',
            label: zh ? '蓝绿切换' : 'Blue-green switch',
            preview: zh
              ? '**蓝绿**：新版本在绿色环境就绪后一次切换，出问题时*立刻切回*。\n\n- 需要双倍实例\n- 切换秒级'
              : '**Blue-green**: switch once the green environment is ready; *switch back* at once if anything breaks.\n\n- needs twice the instances\n- switches in seconds',
          },
          {
            id: 'all-at-once',
            label: zh ? '一次全量' : 'All at once',
            preview: zh
              ? '所有实例同时更新。最快，但出问题时影响**全部用户**。'
              : 'Every instance at once. Fastest, but a problem reaches **every user**.',
          },
        ],
        default: 'canary',
      },
      {
        id: 'replicas',
        header: zh ? '实例' : 'Replicas',
        title: zh ? '准备多少个实例？' : 'How many replicas?',
        mode: 'number',
        min: 1,
        max: 10,
        step: 1,
        default: '3',
      },
      {
        id: 'note',
        header: zh ? '备注' : 'Note',
        title: zh ? '发布说明里要写什么？' : 'Anything for the release notes?',
        mode: 'text',
        required: false,
        maxLength: 200,
        placeholder: zh ? '可不填' : 'optional',
      },
    ],
  };
}
