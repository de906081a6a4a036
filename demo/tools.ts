/**
 * The demo's own tools: one ordinary tool, so a run shows a normal tool call next to ask_user, and two that
 * need the user's approval (contract §12, docs/protocol.md §7): `deploy_preview` (editable, may be allowed for
 * the session) and `delete_branch` (neither). Both only pretend: nothing is deployed or deleted, the result
 * says what would have been. The card's sentence for a call is in the demo's language.
 */
import type { LoopTool, ToolOutput } from 'ask-user-kit/plugin/loop';
import { DELETE_BRANCH, DEPLOY_PREVIEW, LIST_TEST_SUITES, TEST_SUITES } from './scripted-model/index.js';

export const listTestSuites: LoopTool = {
  name: LIST_TEST_SUITES,
  description: 'List the test suites of the project (id, label, description).',
  parameters: { type: 'object', properties: {}, additionalProperties: false },
  run: () => JSON.stringify({ suites: TEST_SUITES }),
};

/** The environments `deploy_preview` deploys to. */
export const DEPLOY_ENVIRONMENTS = ['staging', 'preview'] as const;
export type DeployEnvironment = (typeof DEPLOY_ENVIRONMENTS)[number];

/** A git branch name as the demo takes it: no spaces, no leading dash, at most 100 characters. */
const BRANCH = {
  type: 'string',
  description: 'Git branch name, e.g. feature/login',
  minLength: 1,
  maxLength: 100,
  pattern: '^[A-Za-z0-9][A-Za-z0-9._/-]*$',
} as const;

export const DEPLOY_PREVIEW_SCHEMA = {
  type: 'object',
  properties: {
    branch: BRANCH,
    environment: { type: 'string', enum: [...DEPLOY_ENVIRONMENTS], description: 'Where the preview goes' },
  },
  required: ['branch', 'environment'],
  additionalProperties: false,
};

export const DELETE_BRANCH_SCHEMA = {
  type: 'object',
  properties: { branch: BRANCH },
  required: ['branch'],
  additionalProperties: false,
};

/** The preview's address: the branch as a URL path segment (`feature/login` → `feature-login`), then the environment. */
export function previewUrl(branch: string, environment: string): string {
  const slug =
    branch
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'branch';
  return `https://preview.example.test/${slug}/${environment}`;
}

const BRANCH_RE = new RegExp(BRANCH.pattern);
const isBranch = (v: unknown): v is string => typeof v === 'string' && v.length <= BRANCH.maxLength && BRANCH_RE.test(v);
/** The model may call a tool with arguments its schema refuses: it reads why and may try again. */
const refused = (message: string): ToolOutput => ({ content: `Error: ${message}`, isError: true });

export interface DemoToolsOptions {
  /** Told each time a tool that needs approval runs (the demo server prints a line, so a test can count runs). */
  onRun?: (tool: string, sessionId: string) => void;
}

/** The demo's tools, the approval card's sentences in `locale`. */
export function demoToolsFor(locale: 'zh' | 'en', options: DemoToolsOptions = {}): LoopTool[] {
  const zh = locale === 'zh';
  const { onRun } = options;
  const deployPreview: LoopTool = {
    name: DEPLOY_PREVIEW,
    description: 'Deploy a git branch to a preview environment (staging or preview) and return its URL. Needs the user’s approval.',
    parameters: DEPLOY_PREVIEW_SCHEMA,
    needsApproval: true,
    editable: true,
    allowAlways: true,
    describe: (a) =>
      zh ? `将分支 ${String(a.branch)} 部署到 ${String(a.environment)} 环境` : `Deploy ${String(a.branch)} to ${String(a.environment)}`,
    run(args, { sessionId }) {
      const { branch, environment } = args;
      if (!isBranch(branch)) return refused('deploy_preview: branch must be a git branch name (letters, digits, . _ / -)');
      if (!DEPLOY_ENVIRONMENTS.includes(environment as DeployEnvironment))
        return refused(`deploy_preview: environment must be one of ${DEPLOY_ENVIRONMENTS.join(', ')}`);
      onRun?.(DEPLOY_PREVIEW, sessionId);
      return JSON.stringify({ deployed: true, branch, environment, url: previewUrl(branch, environment as string) });
    },
  };
  const deleteBranch: LoopTool = {
    name: DELETE_BRANCH,
    description: 'Delete a git branch. Needs the user’s approval.',
    parameters: DELETE_BRANCH_SCHEMA,
    needsApproval: true,
    describe: (a) => (zh ? `删除分支 ${String(a.branch)}` : `Delete the branch ${String(a.branch)}`),
    run(args, { sessionId }) {
      const { branch } = args;
      if (!isBranch(branch)) return refused('delete_branch: branch must be a git branch name (letters, digits, . _ / -)');
      onRun?.(DELETE_BRANCH, sessionId);
      return JSON.stringify({ deleted: true, branch });
    },
  };
  return [listTestSuites, deployPreview, deleteBranch];
}

/** The tools in English, for tests and hosts that do not say a language. */
export const demoTools: LoopTool[] = demoToolsFor('en');
