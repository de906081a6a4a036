/**
 * A frame's id on a run's stream (contract §11): `<runId>.<seq>`, runId 1–64 characters of `[A-Za-z0-9_-]`,
 * seq a decimal from 1. The server writes it and the widget reads it back, so both take it from here.
 */

/** Where a frame stands: its run, and its place in the run. */
export interface FramePosition {
  runId: string;
  seq: number;
}

const FRAME_ID = /^([A-Za-z0-9_-]{1,64})\.([1-9][0-9]{0,15})$/;

/** The id a frame carries on the wire. */
export const frameId = (frame: FramePosition): string => `${frame.runId}.${frame.seq}`;

/** `<runId>.<seq>` as the server writes it, or undefined for anything else. */
export function parseFrameId(id: string): FramePosition | undefined {
  const match = FRAME_ID.exec(id);
  if (!match) return undefined;
  const seq = Number(match[2]);
  return Number.isSafeInteger(seq) ? { runId: match[1]!, seq } : undefined;
}
