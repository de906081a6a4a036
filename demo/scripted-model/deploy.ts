/**
 * The offline assistant's deploy topic (contract §12): "deploy feature/login" calls `deploy_preview` alone;
 * "deploy and clean up" calls it with `list_test_suites` (no approval needed: it runs before the card) and
 * `delete_branch` in one turn. Once every call of that turn has its result, it says what came back for each
 * (the preview's URL, a denial's reason), so a transcript shows what the tools were given and returned.
 */
import type { ScriptedToolCall } from './scripted-turn.js';
import type { Lang } from './questions.js';

export const DEPLOY_PREVIEW = 'deploy_preview';
export const DELETE_BRANCH = 'delete_branch';
/** The branch deployed when the message names none. */
export const DEFAULT_DEPLOY_BRANCH = 'feature/login';
/** The branch "clean up" deletes when the message names no second one. */
export const DEFAULT_STALE_BRANCH = 'old/experiment';

/** Branch names as people write them in a message: a name with a slash in it (`feature/login`). */
const BRANCH_IN_TEXT = /[A-Za-z0-9][A-Za-z0-9._-]*\/[A-Za-z0-9._/-]*[A-Za-z0-9_-]/g;
const CLEANUP = /clean|delete|remove|prune|清理|删除|删掉/i;
const STAGING = /staging|预发/i;

export interface DeployPlan {
  branch: string;
  environment: 'staging' | 'preview';
  /** Set for "deploy and clean up": the branch to delete. */
  stale?: string;
}

/** What a deploy message asks for: the first branch it names is deployed, a second one (or the default) cleaned up. */
export function deployPlanOf(text: string): DeployPlan {
  const branches = text.match(BRANCH_IN_TEXT) ?? [];
  const branch = branches[0] ?? DEFAULT_DEPLOY_BRANCH;
  return {
    branch,
    environment: STAGING.test(text) ? 'staging' : 'preview',
    ...(CLEANUP.test(text) ? { stale: branches[1] ?? DEFAULT_STALE_BRANCH } : {}),
  };
}

/** The turn's calls, those the request offers only: deploy, then for a clean-up the suites and the delete. */
export function deployCalls(plan: DeployPlan, offered: (name: string) => boolean, listSuites: string): ScriptedToolCall[] {
  const calls: ScriptedToolCall[] = [{ name: DEPLOY_PREVIEW, arguments: { branch: plan.branch, environment: plan.environment } }];
  if (plan.stale) {
    if (offered(listSuites)) calls.push({ name: listSuites, arguments: {} });
    if (offered(DELETE_BRANCH)) calls.push({ name: DELETE_BRANCH, arguments: { branch: plan.stale } });
  }
  return calls;
}

/** What the assistant says with the calls. */
export function deployIntro(plan: DeployPlan, lang: Lang): string {
  if (lang === 'zh') {
    return plan.stale
      ? `我来把 ${plan.branch} 部署到 ${plan.environment} 环境，看一下测试套件，再删除分支 ${plan.stale}。`
      : `我来把 ${plan.branch} 部署到 ${plan.environment} 环境。`;
  }
  return plan.stale
    ? `I will deploy ${plan.branch} to ${plan.environment}, look at the test suites and delete the branch ${plan.stale}.`
    : `I will deploy ${plan.branch} to ${plan.environment}.`;
}

const parse = (text: string): Record<string, unknown> | undefined => {
  try {
    const v = JSON.parse(text) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
};

/** One call of the turn and what came back for it. */
export interface CallOutcome {
  name: string;
  content: string;
}

/** One line per call of the turn, in call order: what its result says, quoted. */
export function replyToDeploy(outcomes: readonly CallOutcome[], lang: Lang): string {
  const zh = lang === 'zh';
  const lines = outcomes.map(({ name, content }) => {
    const r = parse(content);
    const head = zh ? `${name}：` : `${name}: `;
    if (r?.denied === true) {
      const reason = typeof r.reason === 'string' ? r.reason.trim() : '';
      if (zh) return `${head}被拒绝${reason ? `，原因：“${reason}”` : '（未说明原因）'}`;
      return `${head}denied${reason ? `, reason: “${reason}”` : ' (no reason given)'}`;
    }
    if (r?.interrupted === true) return zh ? `${head}被中断，不确定是否已执行` : `${head}interrupted; it may or may not have run`;
    if (r?.deployed === true) {
      const where = `${String(r.branch)} → ${String(r.environment)}`;
      return zh ? `${head}已部署 ${where}，地址 ${String(r.url)}` : `${head}deployed ${where} at ${String(r.url)}`;
    }
    if (r?.deleted === true) return zh ? `${head}已删除分支 ${String(r.branch)}` : `${head}deleted the branch ${String(r.branch)}`;
    const suites = r?.suites;
    if (Array.isArray(suites)) return zh ? `${head}共 ${suites.length} 组测试` : `${head}${suites.length} test suites`;
    const said = content.trim();
    return `${head}${said.length > 200 ? `${said.slice(0, 199)}…` : said || (zh ? '（无内容）' : '(empty)')}`;
  });
  return (zh ? '执行结果：\n' : 'Here is what came back:\n') + lines.join('\n');
}
