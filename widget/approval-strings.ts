/**
 * The approval card's words (§12), in zh-CN and en. They live in the approval chunk, not in strings.ts, so a
 * card that never asks for approval does not download them; the card's `strings` overrides them as any other
 * (their keys are `AskUserApprovalStrings` of strings.ts).
 */
import type { AskUserApprovalStrings, AskUserLocale } from './strings.js';

const zhCN: AskUserApprovalStrings = {
  approvalTool: '工具：{tool}',
  approvalArguments: '参数',
  approvalNoArguments: '（无参数）',
  approvalEmpty: '（空）',
  approvalShowAll: '展开全部',
  approvalShowLess: '收起',
  approvalDecision: '是否允许这次调用？',
  approve: '允许',
  deny: '拒绝',
  approvalReason: '拒绝原因（选填）',
  approvalReasonHint: '最多 {max} 个字符',
  approvalReasonTooLong: '原因过长：最多 {max} 个字符',
  approvalAlways: '本次会话中始终允许 {tool}',
  approvalEdit: '修改参数后再允许',
  approvalJson: '参数（JSON）',
  approvalChoose: '请选择允许或拒绝',
  approvalRequired: '此项必填',
  approvalNotANumber: '请输入有效的数字',
  approvalNotAnInteger: '请输入整数',
  approvalNotJson: '不是有效的 JSON',
  approvalNotAnObject: '须为一个 JSON 对象 {…}',
  approvalSchema: '不符合此工具接受的参数',
  approvalRefused: '服务器未接受这一项，请修改',
  approvalApproved: '已允许',
  approvalApprovedEdited: '已允许（参数已修改）',
  approvalApprovedAlways: '已允许，本次会话中始终允许',
  approvalDenied: '已拒绝',
  approvalDeniedWithReason: '已拒绝：{reason}',
};

const en: AskUserApprovalStrings = {
  approvalTool: 'Tool: {tool}',
  approvalArguments: 'Arguments',
  approvalNoArguments: '(no arguments)',
  approvalEmpty: '(empty)',
  approvalShowAll: 'Show all',
  approvalShowLess: 'Show less',
  approvalDecision: 'Allow this call?',
  approve: 'Approve',
  deny: 'Deny',
  approvalReason: 'Reason for denying (optional)',
  approvalReasonHint: 'At most {max} characters',
  approvalReasonTooLong: 'Too long: at most {max} characters',
  approvalAlways: 'Allow {tool} for the rest of this session',
  approvalEdit: 'Edit the arguments before approving',
  approvalJson: 'Arguments (JSON)',
  approvalChoose: 'Choose Approve or Deny',
  approvalRequired: 'This field is required',
  approvalNotANumber: 'Enter a valid number',
  approvalNotAnInteger: 'Enter a whole number',
  approvalNotJson: 'Not valid JSON',
  approvalNotAnObject: 'Must be a JSON object {…}',
  approvalSchema: 'Does not fit what this tool accepts',
  approvalRefused: 'The server did not accept this; change it',
  approvalApproved: 'Approved',
  approvalApprovedEdited: 'Approved with edits',
  approvalApprovedAlways: 'Approved for the rest of this session',
  approvalDenied: 'Denied',
  approvalDeniedWithReason: 'Denied: {reason}',
};

export const APPROVAL_STRINGS: Readonly<Record<AskUserLocale, Readonly<AskUserApprovalStrings>>> = { 'zh-CN': zhCN, en };

/** The locale's words with the host's overrides on top; unknown keys and non-strings are ignored. */
export function approvalStrings(locale: AskUserLocale, overrides?: Partial<Record<string, unknown>> | null): AskUserApprovalStrings {
  const out: AskUserApprovalStrings = { ...APPROVAL_STRINGS[locale] };
  for (const key of Object.keys(out) as (keyof AskUserApprovalStrings)[]) {
    const value = overrides?.[key];
    if (typeof value === 'string') out[key] = value;
  }
  return out;
}
