import { emptyFindings, type CycleContext, type CycleFindings } from './lib/cycle-context.js';
export async function measureInstances(_ctx: CycleContext): Promise<CycleFindings> {
  return emptyFindings();
}
