/**
 * The custom-elements manifest (dist/widget/custom-elements.json, package.json `customElements`) made by
 * the stock analyzer with widget/custom-elements-manifest.config.mjs, as `npm run build` does, into a temporary
 * directory. Both elements must be there with their public properties, attributes, events, methods, slots,
 * CSS parts and custom properties, each compared with what the source declares and what README.md's
 * "The widget" section documents, and the entry's exports with the README's export table, so a change to
 * one that the others miss fails here.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTempDir } from '../helpers/temp-dir.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const sorted = (values: Iterable<string>) => [...new Set(values)].sort();
const all = (text: string, re: RegExp) => [...text.matchAll(re)].map((m) => m[1]!);

interface Member {
  kind: string;
  name: string;
  privacy?: string;
  attribute?: string;
}
interface Named {
  name: string;
  fieldName?: string;
  type?: { text: string };
}
interface Declaration {
  kind: string;
  name: string;
  tagName?: string;
  customElement?: boolean;
  summary?: string;
  members?: Member[];
  attributes?: Named[];
  events?: Named[];
  slots?: Named[];
  cssParts?: Named[];
  cssProperties?: Named[];
}
interface Manifest {
  schemaVersion: string;
  modules: Array<{ path: string; declarations?: Declaration[]; exports?: Array<{ kind: string; name: string }> }>;
}

/** The README's "The widget" section. */
const readme = (() => {
  const section = read('README.md')
    .split(/^## /m)
    .find((s) => s.startsWith('The widget\n'));
  assert.ok(section, 'README.md has a "## The widget" section');
  return section;
})();

/** The backticked names in the first column of the README table whose header starts with `header`. */
function tableNames(header: string, after = ''): string[] {
  const from = readme.indexOf(after);
  const at = readme.indexOf(`| ${header}`, from);
  assert.ok(at >= 0, `README has a table headed "${header}"${after ? ` after "${after}"` : ''}`);
  const rows = readme.slice(at).split('\n').slice(2);
  const body = rows.slice(
    0,
    rows.findIndex((r) => !r.startsWith('|')),
  );
  return body.flatMap((row) => all(row.split('|')[1]!, /`([^`]+)`/g));
}

/** A README line's list after `label`, e.g. the CSS parts. */
const readmeList = (label: string, until: string) => {
  const at = readme.indexOf(label);
  assert.ok(at >= 0, `README lists ${label}`);
  return readme
    .slice(at + label.length, readme.indexOf(until, at))
    .replace(/[`\s]+/g, ' ')
    .trim()
    .split(' ');
};

/** Keys of an element's `static properties` that are public (no `_`), with their attributes. */
function declaredProperties(file: string): { names: string[]; attributes: string[] } {
  const block = /static override properties: PropertyDeclarations = \{([^]*?)\n {2}\};/.exec(read(file));
  assert.ok(block, `${file} declares static properties`);
  const entries = [...block[1]!.matchAll(/^\s*(\w+): \{([^}]*)\}/gm)].map((m) => ({ name: m[1]!, options: m[2]! }));
  const open = entries.filter((e) => !e.name.startsWith('_'));
  return {
    names: open.map((e) => e.name),
    attributes: open.flatMap((e) =>
      /attribute: false|state: true/.test(e.options) ? [] : [/attribute: '([^']+)'/.exec(e.options)?.[1] ?? e.name],
    ),
  };
}

test('the analyzer writes a manifest documenting both elements as the source and README do', async (t) => {
  const dir = await makeTempDir('cem-');
  t.after(() => dir.remove());
  const run = spawnSync(
    join(ROOT, 'node_modules/.bin/custom-elements-manifest'),
    ['analyze', '--quiet', '--config', 'widget/custom-elements-manifest.config.mjs', '--outdir', relative(ROOT, dir.path)],
    {
      cwd: ROOT,
      encoding: 'utf8',
    },
  );
  assert.equal(run.status, 0, `the analyzer failed:\n${run.stdout}\n${run.stderr}`);
  const manifest = JSON.parse(readFileSync(join(dir.path, 'custom-elements.json'), 'utf8')) as Manifest;
  const pkg = JSON.parse(read('package.json')) as { customElements?: string; files?: string[]; scripts?: Record<string, string> };
  assert.equal(pkg.customElements, 'dist/widget/custom-elements.json', 'package.json points at the manifest');
  assert.ok(pkg.files?.includes(pkg.customElements), 'and publishes it');
  assert.match(pkg.scripts?.build ?? '', /custom-elements-manifest analyze/, 'the build writes it');

  const elements = manifest.modules.flatMap((m) => m.declarations ?? []).filter((d) => d.customElement);
  const defined = all(read('widget/ask-user-card.ts') + read('widget/ask-user-provider.ts'), /customElements\.define\('([\w-]+)'/g);
  assert.deepEqual(sorted(elements.map((e) => e.tagName!)), sorted(defined), 'one entry per defined tag');
  const element = (tag: string) => elements.find((e) => e.tagName === tag)!;
  const names = (list: Named[] | undefined) => sorted((list ?? []).map((x) => x.name));
  const fields = (d: Declaration) => sorted(d.members!.filter((m) => m.kind === 'field').map((m) => m.name));
  const methods = (d: Declaration) => sorted(d.members!.filter((m) => m.kind === 'method').map((m) => m.name));

  const card = element('ask-user-card');
  const provider = element('ask-user-provider');
  for (const d of [card, provider]) {
    assert.ok(d.summary && d.summary.length > 20, `${d.tagName} has a summary`);
    assert.deepEqual(
      d.members!.filter((m) => m.privacy === 'private' || m.privacy === 'protected' || m.name.startsWith('_')),
      [],
      `${d.tagName}: internals stay out`,
    );
  }

  // Properties and attributes: the manifest, the source's `static properties`, the README tables.
  const cardProps = declaredProperties('widget/ask-user-card.ts');
  assert.deepEqual(fields(card), sorted(cardProps.names), 'card properties as declared');
  assert.deepEqual(names(card.attributes), sorted(cardProps.attributes), 'card attributes as declared');
  const cardTable = tableNames('property (attribute)');
  assert.deepEqual(
    sorted(cardTable),
    sorted([...cardProps.names, ...cardProps.attributes]),
    'card properties and attributes as the README tables them',
  );
  const providerProps = declaredProperties('widget/ask-user-provider.ts');
  assert.deepEqual(fields(provider), sorted(providerProps.names), 'provider properties as declared');
  assert.deepEqual(names(provider.attributes), sorted(providerProps.attributes), 'provider attributes as declared');
  assert.deepEqual(
    sorted(tableNames('property (attribute)', '`<ask-user-provider>` renders')),
    sorted([...providerProps.names, ...providerProps.attributes]),
    'provider properties as the README tables them',
  );

  // Methods a host calls.
  const readmeMethods = all(readme.slice(readme.indexOf('Methods:')), /`(\w+)\(/g).slice(0, 4);
  assert.deepEqual(methods(card), sorted(readmeMethods), 'card methods as the README lists them');

  // Events: the manifest, the event classes' names, the README table.
  const eventNames = all(read('widget/events.ts'), /eventName = '([\w-]+)'/g);
  // The provider fires the connection of the streams its cards start (§11); the card fires the rest.
  const providerEvents = ['ask-user-connection'];
  assert.deepEqual(
    names(card.events),
    sorted(eventNames.filter((n) => !providerEvents.includes(n))),
    'card events as widget/events.ts names them',
  );
  assert.deepEqual(
    sorted(tableNames('event').filter((n) => n.startsWith('ask-user-'))),
    sorted(eventNames),
    'and as the README tables them',
  );
  for (const e of card.events!) assert.match(e.type?.text ?? '', /^AskUser\w+Event$/, `${e.name} names its event class`);
  assert.deepEqual(names(provider.events), providerEvents, 'the provider fires ask-user-connection');

  // CSS parts: the manifest, the parts the templates draw, the README.
  const drawn = all(read('widget/ask-user-card.templates.ts'), /part="([\w-]+)"/g);
  assert.deepEqual(names(card.cssParts), sorted(drawn), 'card CSS parts as the templates draw them');
  assert.deepEqual(names(card.cssParts), sorted(readmeList('CSS parts:', '. Custom properties')), 'and as the README lists them');

  // Custom properties: the manifest, the styles, the README (written `--ask-user-font-family -font-size …`).
  const styled = all(read('widget/ask-user-card.styles.ts'), /var\((--ask-user-[a-z][a-z-]*[a-z])/g);
  assert.deepEqual(names(card.cssProperties), sorted(styled), 'card custom properties as the styles read them');
  const [first, ...rest] = readmeList('Custom properties:', ';');
  const readmeProps = [first!, ...rest.map((suffix) => `--ask-user${suffix}`)];
  assert.deepEqual(names(card.cssProperties), sorted(readmeProps), 'and as the README lists them');

  // The package entry's exports, as the manifest records widget/index.ts: exactly the README's export table.
  const entry = manifest.modules.find((m) => m.path === 'widget/index.ts');
  assert.deepEqual(
    sorted((entry?.exports ?? []).map((e) => e.name)),
    sorted(tableNames('export')),
    'the widget exports what the README tables',
  );

  assert.equal(card.slots?.length, 1, 'the card documents its (unused) default slot');
  assert.equal(provider.slots?.length, 1, 'the provider documents its default slot');
});
