/**
 * The widget's custom-elements manifest (dist/widget/custom-elements.json, package.json `customElements`),
 * made by the stock analyzer from the element classes and their JSDoc (`npm run build`). Only the public
 * side is kept: `_` members are internal (the bundles rename them), and an event is listed by its `@event`
 * tag, not by the `dispatchEvent` calls the analyzer also finds.
 */
const isInternal = (name) => typeof name === 'string' && name.startsWith('_');

/** Drops internal members and attributes, and events that have no name (found in code, not documented). */
function publicSurfaceOnly() {
  return {
    name: 'ask-user-kit:public-surface-only',
    packageLinkPhase({ customElementsManifest }) {
      for (const mod of customElementsManifest.modules ?? []) {
        for (const decl of mod.declarations ?? []) {
          if (decl.kind !== 'class') continue;
          if (decl.members)
            decl.members = decl.members.filter((m) => m.privacy !== 'private' && m.privacy !== 'protected' && !isInternal(m.name));
          if (decl.attributes) decl.attributes = decl.attributes.filter((a) => !isInternal(a.fieldName ?? a.name));
          if (decl.events) decl.events = decl.events.filter((e) => e.name);
        }
      }
    },
  };
}

export default {
  globs: ['widget/index.ts', 'widget/ask-user-card.ts', 'widget/ask-user-provider.ts'],
  outdir: 'dist/widget',
  litelement: true,
  packagejson: false,
  plugins: [publicSurfaceOnly()],
};
