/**
 * What an MCP tool's annotations say about approval (contract §12): a tool that says `destructiveHint:
 * true` needs the user's approval, one that says `idempotentHint: true` may run again after a crash. The
 * host's own fields win, so it can lift or add either. Hints are read as the server sends them: an
 * absent `destructiveHint` asks nothing (MCP's default of true for a tool that is not read-only is not
 * assumed; a host that wants it says `needsApproval` itself).
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ApprovalPolicy } from '../tools/approval-policy.js';

export function mcpApprovalPolicy(tool: Pick<Tool, 'annotations'>, host: ApprovalPolicy = {}): ApprovalPolicy {
  const hints = tool.annotations ?? {};
  return {
    ...(hints.destructiveHint === true ? { needsApproval: true } : {}),
    ...(hints.idempotentHint === true ? { idempotent: true } : {}),
    ...host,
  };
}
