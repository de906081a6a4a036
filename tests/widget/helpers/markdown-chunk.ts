/**
 * The Markdown chunk is fetched only for a card that uses rich text (docs/protocol.md §9.3), checked on a
 * built bundle: plain cards first, then a rich one. One page per bundle, as both define <ask-user-card>.
 */
import { describe, it } from './bdd.js';
import { equal, until } from './expect.js';
import { fetchedCount, mount, request } from './chunk-page.js';

const CHUNK = '/dist/widget/ask-user-kit.markdown.js';
const fetched = () => fetchedCount(CHUNK);

export function describeMarkdownChunk(bundle: string): void {
  describe(`the Markdown chunk of ${bundle}`, () => {
    it('is not fetched for plain text, descriptions and previews included; is fetched once a card uses Markdown', async () => {
      await import(/* @vite-ignore */ `/dist/widget/${bundle}`);
      const plain = {
        description: 'Plain words, 1.5 - 2 (no markup) & <tags> #hash > quote',
        options: [{ id: 'a', label: '*label* text', description: 'plain', preview: 'replicas: 1\nimage: app:2' }],
      };
      await mount(request({ mode: 'single', ...plain }));
      await mount(request({ mode: 'form', title: 'Form', questions: [{ id: 'q', title: 'Q', mode: 'single', ...plain }] }));
      await new Promise((r) => setTimeout(r, 300));
      equal(fetched(), 0, 'fetches of the chunk for plain cards');
      const rich = await mount(request({ mode: 'single', description: 'with **strong**', options: [{ id: 'a', label: 'A' }] }));
      // While the chunk loads, the text shows as it is, and focus taken meanwhile stays where it is.
      equal(rich.shadowRoot!.querySelector('#description')!.textContent, 'with **strong**', 'plain text first');
      const option = rich.shadowRoot!.querySelector<HTMLInputElement>('#option-0')!;
      option.focus();
      await until(() => rich.shadowRoot!.querySelector('#description strong'), 'the Markdown rendered');
      equal(rich.shadowRoot!.activeElement, option, 'focus after the Markdown rendered');
      equal(fetched(), 1, 'fetches of the chunk');
      for (const el of document.querySelectorAll('ask-user-card')) el.remove();
    });
  });
}
