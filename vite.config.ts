/**
 * `vite build` produces both browser bundles of the widget in one run, as two build environments:
 *   dist/widget/ask-user-kit.js             ES module, lit and @lit/context external (for bundlers)
 *   dist/widget/ask-user-kit.standalone.js  lit inside (a WebView's <script type="module">); its lazy chunks
 *     ask-user-kit.standalone-[name].js lie beside it, and rich text loads ask-user-kit.markdown.js from there too
 *
 * The elements declare their reactive properties in `static properties` and give defaults as class fields,
 * which `useDefineForClassFields: false` (tsconfig.json) turns into assignments in the constructor. Vite 8's
 * Oxc transform reads that from the tsconfig; `OXC_OPTIONS` (widget/build/bundles.ts) states the same choice so the build does
 * not depend on which tsconfig Oxc happens to resolve. Native class fields would shadow Lit's reactive
 * accessors and the element would never re-render; tests/widget/bundle-*.test.ts checks the built files.
 */
import { defineConfig } from 'vite';
import { LIT_EXTERNAL, OXC_OPTIONS, widgetBuild } from './widget/build/bundles.js';
import { minifyLitTemplates } from './widget/build/lit-templates.js';
import { sharedChunkImports } from './widget/build/shared-chunks.js';
import { manglePrivateMembers } from './widget/build/mangle-private-members.js';
import { inlineLimits } from './widget/build/inline-limits.js';

export default defineConfig({
  publicDir: false,
  plugins: [minifyLitTemplates(), inlineLimits(), sharedChunkImports(), manglePrivateMembers()],
  oxc: OXC_OPTIONS,
  environments: {
    module: { consumer: 'client', build: widgetBuild('ask-user-kit.js', LIT_EXTERNAL) },
    standalone: { consumer: 'client', build: widgetBuild('ask-user-kit.standalone.js', undefined) },
  },
  builder: {
    // One after the other, so the two reports print in a stable order.
    async buildApp(builder) {
      await builder.build(builder.environments.module!);
      await builder.build(builder.environments.standalone!);
    },
  },
});
