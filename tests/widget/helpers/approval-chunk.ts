/**
 * The approval chunk (§12) is fetched only when an approval card appears, checked on a built bundle:
 * plain cards first, then an approval card. One page per bundle, as both define <ask-user-card>.
 */
import { describe, it } from './bdd.js';
import { equal, until } from './expect.js';
import { fetchedCount, mount, request } from './chunk-page.js';

export function describeApprovalChunk(bundle: string, chunk: string): void {
  const fetched = () => fetchedCount(`/dist/widget/${chunk}`);
  describe(`the approval chunk of ${bundle}`, () => {
    it('is not fetched for question cards; is fetched once an approval card appears, which then draws', async () => {
      await import(/* @vite-ignore */ `/dist/widget/${bundle}`);
      await mount(request({ mode: 'single', options: [{ id: 'a', label: 'A' }] }));
      await mount(request({ mode: 'form', title: 'Form', questions: [{ id: 'q', title: 'Q', mode: 'text' }] }));
      await new Promise((r) => setTimeout(r, 300));
      equal(fetched(), 0, 'fetches of the chunk for question cards');
      const card = await mount(
        request({
          mode: 'approval',
          approvals: [{ toolCallId: 'c1', tool: 'rm', title: 'Remove', arguments: { path: 'x' }, editable: false, allowAlways: false }],
        }),
      );
      await until(() => card.shadowRoot!.querySelector('#a0-approve'), 'the approval card drawn');
      equal(fetched(), 1, 'fetches of the chunk');
      for (const el of document.querySelectorAll('ask-user-card')) el.remove();
    });
  });
}
