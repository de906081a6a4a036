/**
 * The page's own words, zh-CN and en. Receipts, live or redrawn, use the card's (`STRINGS` of the widget).
 * `…Short` labels replace the long ones on a phone, where the header has one row for all buttons.
 */
export type PageLang = 'zh' | 'en';

export const PAGE_STRINGS = {
  zh: {
    title: 'ask_user 演示',
    newSession: '新会话',
    newSessionShort: '新会话',
    trace: '开发者面板',
    traceShort: '开发者',
    chat: '对话',
    hints:
      '试试：「帮我规划发布」「要跑哪些测试」「输出到哪个目录」「需要多少实例」「启用哪些功能」「给项目起个名字」「部署 feature/login」「部署并清理」',
    alwaysAllowed: '本会话始终允许：',
    message: '消息',
    placeholder: '输入消息，Enter 发送，Shift+Enter 换行',
    send: '发送',
    stop: '停止',
    reconnecting: '连接中断，正在重新连接…',
    traceTitle: '原始 SSE 与审计',
    refresh: '刷新',
    showDeltas: '显示 message_delta',
    langButton: 'English',
    you: '你',
    assistant: '助手',
    tool: '工具',
    error: '出错了',
    busy: '会话正忙，请等当前回复结束后再发。',
    session: '会话',
    run: '运行',
    notYours: '这个会话属于另一个浏览器，已为你新开一个会话。',
    traceOff: '开发者面板未开启：用 ASK_USER_TRACE=1 启动演示服务即可查看原始 SSE 与审计。',
  },
  en: {
    title: 'ask_user demo',
    newSession: 'New session',
    newSessionShort: 'New',
    trace: 'Developer panel',
    traceShort: 'Dev',
    chat: 'Chat',
    hints:
      'Try: “plan a release”, “which tests should run”, “which directory”, “how many instances”, “enable features”, “name the project”, “deploy feature/login”, “deploy and clean up”',
    alwaysAllowed: 'Always allowed:',
    message: 'Message',
    placeholder: 'Type a message; Enter sends, Shift+Enter adds a line',
    send: 'Send',
    stop: 'Stop',
    reconnecting: 'Connection lost; reconnecting…',
    traceTitle: 'Raw SSE and audit',
    refresh: 'Refresh',
    showDeltas: 'Show message_delta',
    langButton: '中文',
    you: 'You',
    assistant: 'Assistant',
    tool: 'Tool',
    error: 'Error',
    busy: 'The session is busy; wait for the current reply to finish.',
    session: 'Session',
    run: 'Run',
    notYours: 'That session belongs to another browser; a new session was started for you.',
    traceOff: 'The developer trace is off: start the demo with ASK_USER_TRACE=1 to see the raw SSE and audit lines.',
  },
} as const;

export type PageStrings = (typeof PAGE_STRINGS)[PageLang];
