/**
 * The approval card (contract §12) as a user drives it in the demo page, and the evidence its cases read:
 * the card's frame in the raw SSE, the decisions the page posted, each tool's ToolResult on the wire and as
 * the model got it, and how often each demo tool ran (the `demo.tool_run` lines the demo server prints).
 */
import assert from 'node:assert/strict';
import type { Locator } from 'playwright-core';
import type { ChatRequestBody } from '../../helpers/scripted-model.js';
import { previewUrl } from '../../../demo/tools.js';
import type { ChatPage } from './demo-page.js';
import { jsonLines, type DemoProcess } from './demo-process.js';
import { framesOf } from './frames.js';
import type { RawEvent } from './model-evidence.js';
import type { WireTap } from './wire-tap.js';

/** What `deploy_preview` answers for a branch and environment, byte for byte. */
export const deployedContent = (branch: string, environment: 'staging' | 'preview') =>
  JSON.stringify({ deployed: true, branch, environment, url: previewUrl(branch, environment) });
export const deletedContent = (branch: string) => JSON.stringify({ deleted: true, branch });
/** A denied call's ToolResult (§12): exactly this. */
export const deniedContent = (reason: string) => JSON.stringify({ denied: true, reason });

/**
 * The last card once its approval form is drawn (the chunk loads lazily): the first call's Approve is on
 * screen. Located by its request id, so a card that comes after it (a new message's question) is not it.
 */
export async function approvalCard(chat: ChatPage): Promise<Locator> {
  const last = await chat.openCard();
  await last.locator('#a0-approve').waitFor({ state: 'visible' });
  const id = await last.getAttribute('data-request-id');
  assert.ok(id, 'the approval card carries no data-request-id');
  return chat.card(id);
}

export interface Decision {
  decision: 'approve' | 'deny';
  reason?: string;
  always?: boolean;
  /** Approve with these fields changed in the edit form (by label: a text field is filled, a select picks the option). */
  edit?: { branch?: string; environment?: 'staging' | 'preview' };
}

/** Sets call `i`'s decision on the card, as a user clicks and types it (nothing is submitted). */
export async function decide(card: Locator, i: number, d: Decision): Promise<void> {
  await card.locator(`#a${i}-${d.decision}`).check();
  if (d.reason !== undefined) await card.locator(`#a${i}-reason`).fill(d.reason);
  if (d.always) await card.locator(`#a${i}-always`).check();
  if (d.edit) {
    await card.locator(`#a${i}-edit`).check();
    if (d.edit.branch !== undefined) await card.locator(`#a${i}-field-0`).fill(d.edit.branch);
    if (d.edit.environment !== undefined) await card.locator(`#a${i}-field-1`).selectOption({ label: d.edit.environment });
  }
}

export const submit = (card: Locator) => card.locator('[part~="submit-button"]').click();

/** The approval card's `user_input_required` in a stream's events, checked to be one. */
export function approvalAsked(events: RawEvent[], what: string): any {
  const asked = events.find((e) => e.event === 'user_input_required');
  assert.ok(asked, `${what}: no user_input_required in the raw SSE; events: ${events.map((e) => e.event).join(', ')}`);
  assert.equal(asked.data.mode, 'approval', `${what}: the card is not an approval card`);
  assert.ok(Array.isArray(asked.data.approvals), `${what}: the card carries no approvals`);
  return asked.data;
}

/** Each tool_result frame the page received, in order, across every stream (a restart or reload included). */
export function toolResultFrames(tap: WireTap): Array<{ toolCallId: string; name: string; content: string; isError: boolean }> {
  return framesOf(tap)
    .filter((f) => f.event === 'tool_result')
    .map((f) => f.data);
}

/** How often each demo tool that needs approval ran for `sessionId`, by the lines the server printed (every generation). */
export function toolRuns(server: DemoProcess, sessionId: string): Record<string, number> {
  const runs: Record<string, number> = {};
  for (const line of jsonLines(server.output, 'demo.tool_run'))
    if (line.sessionId === sessionId) runs[String(line.tool)] = (runs[String(line.tool)] ?? 0) + 1;
  return runs;
}

/** The tool messages of one model request, by call id (content as the model read it). */
export function toolMessages(body: ChatRequestBody | undefined): Record<string, string> {
  return Object.fromEntries(
    (body?.messages ?? [])
      .filter((m) => m.role === 'tool')
      .map((m) => [String(m.tool_call_id), typeof m.content === 'string' ? m.content : JSON.stringify(m.content)]),
  );
}

/** The arguments of call `toolCallId` as the model's request holds them (an edit of the user's written in). */
export function callArguments(body: ChatRequestBody | undefined, toolCallId: string): unknown {
  for (const m of body?.messages ?? []) {
    const call = ((m.tool_calls as Array<{ id: string; function: { arguments: string } }> | undefined) ?? []).find(
      (c) => c.id === toolCallId,
    );
    if (call) return JSON.parse(call.function.arguments);
  }
  return undefined;
}

/** The page's body for the card's continue: what the page posted. */
export const postedBody = (x: { requestBody: string | null }) => JSON.parse(x.requestBody ?? '{}') as Record<string, any>;
