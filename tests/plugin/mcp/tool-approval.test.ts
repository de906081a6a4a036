/** An MCP tool's annotations as approval fields (contract §12): destructive needs approval, the host's word wins. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mcpApprovalPolicy } from '../../../plugin/mcp/index.js';
import { callNeedsApproval } from '../../../plugin/tools/approval-policy.js';

const ctx = { sessionId: 's', toolCallId: 'c' };

test('destructiveHint: true needs approval; false, absent or read-only without the hint does not', async () => {
  assert.equal(await callNeedsApproval(mcpApprovalPolicy({ annotations: { destructiveHint: true } }), {}, ctx), true);
  assert.equal(await callNeedsApproval(mcpApprovalPolicy({ annotations: { destructiveHint: false } }), {}, ctx), false);
  assert.equal(await callNeedsApproval(mcpApprovalPolicy({}), {}, ctx), false);
  assert.equal(await callNeedsApproval(mcpApprovalPolicy({ annotations: { readOnlyHint: true } }), {}, ctx), false);
});

test("idempotentHint makes the call safe to run again; the host's own fields win over both hints", async () => {
  assert.equal(mcpApprovalPolicy({ annotations: { idempotentHint: true } }).idempotent, true);
  const lifted = mcpApprovalPolicy(
    { annotations: { destructiveHint: true, idempotentHint: true } },
    { needsApproval: false, idempotent: false },
  );
  assert.equal(await callNeedsApproval(lifted, {}, ctx), false);
  assert.equal(lifted.idempotent, false);
  const added = mcpApprovalPolicy({}, { needsApproval: (args) => args.force === true, editable: true });
  assert.equal(await callNeedsApproval(added, { force: true }, ctx), true);
  assert.equal(await callNeedsApproval(added, {}, ctx), false);
  assert.equal(added.editable, true);
});

test('a needsApproval function that throws asks: a failing check never lets a call through', async () => {
  const policy = {
    needsApproval: () => {
      throw new Error('policy service down');
    },
  };
  assert.equal(await callNeedsApproval(policy, {}, ctx), true);
});
