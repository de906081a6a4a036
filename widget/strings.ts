/**
 * Every word the card shows, in zh-CN (the default) and en. A host overrides any subset through the
 * card's `strings` property; `{name}` placeholders are filled by {@link formatMessage}, so overrides stay plain
 * data (JSON-friendly) instead of functions.
 */

export interface AskUserStrings {
  /** Submit button text when the request has no `submitLabel`. */
  submit: string;
  cancel: string;
  retry: string;
  submitting: string;
  cancelling: string;
  /** Shown beside a recommended option, in words so it does not rely on colour. */
  recommended: string;
  /** Label of the extra free-text box (`allowCustom`) in non-text modes. */
  other: string;
  otherPlaceholder: string;
  textPlaceholder: string;
  numberHint: string;
  dateHint: string;
  directoryHint: string;
  directoryPlaceholder: string;
  /** Hint under the switches of `toggle` mode. */
  toggleHint: string;
  multipleHint: string;
  /** Shown when the request's `mode` is not one this widget knows; only cancel is offered. */
  unsupportedMode: string;
  /** Countdown to `expiresAt`; `{time}` is `m:ss` or `h:mm:ss`. */
  expiresIn: string;
  /** After the title of a question that may be left blank (§9.2 `required: false`). */
  optional: string;
  /** A link card (an MCP server's URL-mode request, §10): the host its link opens, in plain text; `{host}`. */
  linkHost: string;
  /** The link itself; opening it answers the card. Also the receipt's label for the host opened. */
  openLink: string;
  /** A link card's cancel button: the server hears `decline`. */
  decline: string;
  /** On the question the server's 422 named (`error.field`). */
  fieldRefused: string;

  // Validation, one per answer-rule problem (plugin/contract/answer-rules.ts) and mode where they differ.
  chooseOne: string;
  chooseOneOrDescribe: string;
  chooseOnlyOne: string;
  toggleAtLeastOne: string;
  unknownOption: string;
  textRequired: string;
  notANumber: string;
  notADate: string;
  notARelativePath: string;
  customNotAllowed: string;
  tooLong: string;
  // The bounds of docs/protocol.md §9.1 (min, max, step, minLength, maxLength, minSelections, maxSelections).
  belowMin: string;
  aboveMax: string;
  offStep: string;
  tooShort: string;
  overMaxLength: string;
  tooFewSelections: string;
  tooManySelections: string;
  /** `below_min` / `above_max` of a date question. */
  dateMin: string;
  dateMax: string;
  // The bounds in words under a field or the options (also their accessible description): `{min}`, `{max}`,
  // `{step}`. A lone bound reads as its message (belowMin, tooShort, tooFewSelections, …).
  rangeHint: string;
  stepHint: string;
  lengthRange: string;
  selectionsRange: string;

  // Receipts.
  receiptAnswered: string;
  receiptCancelled: string;
  receiptExpired: string;
  receiptSuperseded: string;
  /** 409 already_answered: the first answer was made earlier (another tab, another device, a lost response). */
  receiptAnsweredElsewhere: string;
  /** Under a 409 receipt: this card's own answer came after the question closed and was not used. */
  lateAnswerNotUsed: string;
  receiptGone: string;
  receiptSelections: string;
  receiptCustom: string;
  receiptNothing: string;
  /** A receipt's answer to an optional question left blank (§9.2). */
  receiptSkipped: string;
  /** A §9.2 receipt's typed answer given in another tab, whose text this card never saw. */
  receiptTextNotShown: string;
  /** `{time}` is a localized date-time. */
  receiptAt: string;
  /** Joins the labels of the chosen options in a receipt. */
  listSeparator: string;
  /** Under an answered receipt while the run it continued is still going. */
  continuing: string;
  // Under an answered receipt once that run ended (`markRunEnded`), one per `done` reason.
  runCompleted: string;
  runPaused: string;
  runCancelled: string;
  runError: string;
  expiredAction: string;
  cancelledAction: string;
  notResumable: string;

  // Server and network errors, with what the user can do.
  errorInvalidAnswer: string;
  errorInvalidRequest: string;
  errorForbidden: string;
  errorNotResumable: string;
  errorUnavailable: string;
  errorNetwork: string;
  errorUnknown: string;
  /** Submit found nothing to send the answer: no provider, `endpoint` or `onSubmit`, and no host took `ask-user-submit`. */
  errorNoSubmitter: string;
  /** Prefix of the server's own message, shown under the localized one. */
  errorDetail: string;

  // The §9.3 preview beside (or below) the options: its name, and what it says without a preview to show.
  previewTitle: string;
  /** `{label}` is the option's label. */
  previewOf: string;
  previewPrompt: string;
  previewNone: string;
}

/**
 * The approval card's words (§12). Their zh-CN and en values ship in the approval card's lazy chunk
 * (approval-strings.ts), so a card that asks no approval does not download them; the card's `strings`
 * property overrides them as any other.
 */
export interface AskUserApprovalStrings {
  /** Under a call's title: `{tool}` is the tool's name. */
  approvalTool: string;
  /** The name of a call's argument list. */
  approvalArguments: string;
  approvalNoArguments: string;
  /** An empty list or object among the arguments. */
  approvalEmpty: string;
  /** Unfolds a long argument value, and folds it again. */
  approvalShowAll: string;
  approvalShowLess: string;
  /** The legend of a call's Approve / Deny choice. */
  approvalDecision: string;
  approve: string;
  deny: string;
  /** The optional reason with Deny; `{max}` is its limit in characters. */
  approvalReason: string;
  approvalReasonHint: string;
  approvalReasonTooLong: string;
  /** `{tool}` is the tool's name. */
  approvalAlways: string;
  /** Opens the edit form of an editable call. */
  approvalEdit: string;
  /** The label of the JSON text of a call whose schema is not a flat object. */
  approvalJson: string;
  /** A call submitted without Approve or Deny. */
  approvalChoose: string;
  // An edit the card refuses, at the field it names.
  approvalRequired: string;
  approvalNotANumber: string;
  approvalNotAnInteger: string;
  approvalNotJson: string;
  approvalNotAnObject: string;
  approvalSchema: string;
  /** On the call the server's 422 named. */
  approvalRefused: string;
  // Each decision, in the receipt; `{reason}` is the reason given.
  approvalApproved: string;
  approvalApprovedEdited: string;
  approvalApprovedAlways: string;
  approvalDenied: string;
  approvalDeniedWithReason: string;
}

export type AskUserLocale = 'zh-CN' | 'en';

const zhCN: AskUserStrings = {
  submit: '提交',
  cancel: '取消',
  retry: '重试',
  submitting: '正在提交…',
  cancelling: '正在取消…',
  recommended: '推荐',
  other: '其他说明',
  otherPlaceholder: '可选：补充选项之外的内容',
  textPlaceholder: '请输入回答',
  numberHint: '请输入数字，例如 42 或 -3.5',
  dateHint: '点选日期，或按输入框显示的顺序输入',
  directoryHint: '请输入相对于工作区的路径，例如 src/components（不能以 / 开头，不能包含 ..）',
  directoryPlaceholder: 'src/components',
  toggleHint: '至少开启一项',
  multipleHint: '可多选',
  unsupportedMode: '此问题类型（{mode}）无法在这里回答，你可以取消它。',
  linkHost: '链接将打开：{host}',
  openLink: '打开链接',
  decline: '拒绝',
  expiresIn: '剩余时间 {time}',
  optional: '（选填）',
  fieldRefused: '服务器未接受这一项，请修改',
  chooseOne: '请选择一个选项',
  chooseOneOrDescribe: '请选择一个选项，或在“其他说明”中填写',
  chooseOnlyOne: '只能选择一个选项',
  toggleAtLeastOne: '请至少开启一项',
  unknownOption: '所选项已不在选项列表中，请重新选择',
  textRequired: '请填写回答',
  notANumber: '请输入有效的数字，例如 42 或 -3.5',
  notADate: '请输入有效的日期',
  notARelativePath: '请输入相对于工作区的路径：不能以 /、\\ 或 ~ 开头，不能带盘符，不能包含 ..',
  customNotAllowed: '此问题不接受自由填写',
  tooLong: '内容过长：最多 {max} 个字符',
  belowMin: '不能小于 {min}',
  aboveMax: '不能大于 {max}',
  offStep: '须为 {min} 加 {step} 的整数倍',
  tooShort: '至少 {min} 个字符',
  overMaxLength: '最多 {max} 个字符',
  tooFewSelections: '至少选择 {min} 项',
  tooManySelections: '最多选择 {max} 项',
  dateMin: '不能早于 {min}',
  dateMax: '不能晚于 {max}',
  rangeHint: '范围 {min} 至 {max}',
  stepHint: '，步长 {step}',
  lengthRange: '{min} 至 {max} 个字符',
  selectionsRange: '选择 {min} 至 {max} 项',
  receiptAnswered: '已提交',
  receiptCancelled: '已取消',
  receiptExpired: '已超时',
  receiptSuperseded: '已被新消息取代',
  receiptAnsweredElsewhere: '此问题已经回答过（可能在其他窗口）',
  lateAnswerNotUsed: '你在这里的回答未被采用：此问题之前已有结果，如下。',
  receiptGone: '此问题已不存在',
  receiptSelections: '选择',
  receiptCustom: '填写',
  receiptNothing: '（未填写）',
  receiptSkipped: '（跳过）',
  receiptTextNotShown: '（已填写）',
  receiptAt: '时间 {time}',
  listSeparator: '、',
  continuing: '继续执行中…',
  runCompleted: '已继续，任务完成',
  runPaused: '已继续，助手有新的问题',
  runCancelled: '已继续，任务已停止',
  runError: '已继续，任务出错',
  expiredAction: '回答时间已过，任务未继续。如仍需要，请重新发起任务。',
  cancelledAction: '任务已停止，不会再次追问。',
  notResumable: '服务已重启，请重新发起任务',
  errorInvalidAnswer: '服务器未接受这个回答，请修改后重新提交。',
  errorInvalidRequest: '提交的内容格式有误，请刷新页面后重试。',
  errorForbidden: '你无权回答这个问题，请确认登录的账号或刷新页面。',
  errorNotResumable: '服务已重启，请重新发起任务',
  errorUnavailable: '服务暂时不可用，你的回答尚未提交，可以稍后重试。',
  errorNetwork: '网络连接失败，你的回答尚未提交，请检查网络后重试。',
  errorUnknown: '提交失败，请稍后重试。',
  errorNoSubmitter: '无法发送回答：此页面没有为卡片设置提交方式。你的回答尚未提交。',
  errorDetail: '详情：',
  previewTitle: '预览',
  previewOf: '预览：{label}',
  previewPrompt: '聚焦或选择一个选项，即可在这里查看它的预览。',
  previewNone: '这个选项没有预览。',
};

const en: AskUserStrings = {
  submit: 'Submit',
  cancel: 'Cancel',
  retry: 'Retry',
  submitting: 'Submitting…',
  cancelling: 'Cancelling…',
  recommended: 'Recommended',
  other: 'Other',
  otherPlaceholder: 'Optional: anything the options do not cover',
  textPlaceholder: 'Type your answer',
  numberHint: 'Enter a number, such as 42 or -3.5',
  dateHint: 'Pick a date, or type it in the order the field shows',
  directoryHint: 'A path relative to the workspace, such as src/components (no leading /, no ..)',
  directoryPlaceholder: 'src/components',
  toggleHint: 'Turn on at least one',
  multipleHint: 'Choose any number',
  unsupportedMode: 'This kind of question ({mode}) cannot be answered here; you can cancel it.',
  linkHost: 'The link opens: {host}',
  openLink: 'Open link',
  decline: 'Decline',
  expiresIn: 'Time left {time}',
  optional: '(optional)',
  fieldRefused: 'The server did not accept this; change it',
  chooseOne: 'Choose an option',
  chooseOneOrDescribe: 'Choose an option, or describe your answer under “Other”',
  chooseOnlyOne: 'Choose only one option',
  toggleAtLeastOne: 'Turn on at least one option',
  unknownOption: 'A chosen option is no longer offered; choose again',
  textRequired: 'An answer is required',
  notANumber: 'Enter a valid number, such as 42 or -3.5',
  notADate: 'Enter a valid date',
  notARelativePath: 'Enter a path relative to the workspace: no leading /, \\ or ~, no drive letter, no ..',
  customNotAllowed: 'This question takes no free text',
  tooLong: 'Too long: at most {max} characters',
  belowMin: 'Must be at least {min}',
  aboveMax: 'Must be at most {max}',
  offStep: 'Must be {min} plus a multiple of {step}',
  tooShort: 'At least {min} characters',
  overMaxLength: 'At most {max} characters',
  tooFewSelections: 'Choose at least {min}',
  tooManySelections: 'Choose at most {max}',
  dateMin: 'Must be {min} or later',
  dateMax: 'Must be {max} or earlier',
  rangeHint: 'From {min} to {max}',
  stepHint: '. In steps of {step}',
  lengthRange: '{min} to {max} characters',
  selectionsRange: 'Choose {min} to {max}',
  receiptAnswered: 'Submitted',
  receiptCancelled: 'Cancelled',
  receiptExpired: 'Timed out',
  receiptSuperseded: 'Replaced by a newer message',
  receiptAnsweredElsewhere: 'This question was already answered (perhaps in another window)',
  lateAnswerNotUsed: 'Your answer here was not used: the question already had an outcome, shown below.',
  receiptGone: 'This question no longer exists',
  receiptSelections: 'Chosen',
  receiptCustom: 'Typed',
  receiptNothing: '(nothing entered)',
  receiptSkipped: '(skipped)',
  receiptTextNotShown: '(text entered)',
  receiptAt: 'At {time}',
  listSeparator: ', ',
  continuing: 'Continuing…',
  runCompleted: 'Continued; the task is done',
  runPaused: 'Continued; the assistant has another question',
  runCancelled: 'Continued; the task stopped',
  runError: 'Continued; the task failed',
  expiredAction: 'The time to answer has passed and the task did not continue. Start the task again if you still need it.',
  cancelledAction: 'The task stopped and will not ask again.',
  notResumable: 'The service restarted; please start the task again',
  errorInvalidAnswer: 'The server did not accept this answer; change it and submit again.',
  errorInvalidRequest: 'The submission was malformed; reload the page and try again.',
  errorForbidden: 'You may not answer this question; check the account you are signed in with or reload the page.',
  errorNotResumable: 'The service restarted; please start the task again',
  errorUnavailable: 'The service is temporarily unavailable. Your answer was not submitted; you can retry shortly.',
  errorNetwork: 'The network request failed. Your answer was not submitted; check your connection and retry.',
  errorUnknown: 'Submitting failed; please try again later.',
  errorNoSubmitter: 'This answer cannot be sent: the page has not set up a way to submit it. Nothing was sent.',
  errorDetail: 'Details: ',
  previewTitle: 'Preview',
  previewOf: 'Preview: {label}',
  previewPrompt: 'Focus or choose an option to see its preview here.',
  previewNone: 'This option has no preview.',
};

export const STRINGS: Readonly<Record<AskUserLocale, Readonly<AskUserStrings>>> = { 'zh-CN': zhCN, en };

export const DEFAULT_LOCALE: AskUserLocale = 'zh-CN';

/** `en`, `en-US`, `EN_gb` → `en`; `zh`, `zh-Hans-CN` → `zh-CN`; anything else or nothing → the default. */
export function resolveLocale(tag: string | null | undefined): AskUserLocale {
  const t = (tag ?? '').trim().toLowerCase();
  if (t === 'en' || t.startsWith('en-') || t.startsWith('en_')) return 'en';
  return DEFAULT_LOCALE;
}

/** The locale's table with the host's overrides on top; unknown keys in `overrides` are ignored. */
export function resolveStrings(locale: AskUserLocale, overrides?: Partial<AskUserStrings> | null): AskUserStrings {
  const base = STRINGS[locale];
  if (!overrides) return { ...base };
  const out: AskUserStrings = { ...base };
  for (const key of Object.keys(base) as (keyof AskUserStrings)[]) {
    const value = overrides[key];
    if (typeof value === 'string') out[key] = value;
  }
  return out;
}

/** Fills `{name}` placeholders; a placeholder without a value (or `undefined`) stays as written so the gap is visible. */
export function formatMessage(template: string, values: Record<string, string | number | undefined>): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) =>
    Object.prototype.hasOwnProperty.call(values, name) && values[name] !== undefined ? String(values[name]) : whole,
  );
}
