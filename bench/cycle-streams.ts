import { emptyFindings, type CycleContext, type CycleFindings } from './lib/cycle-context.js';
export async function measureStreams(_ctx: CycleContext): Promise<CycleFindings> {
  return emptyFindings();
}
