/**
 * The names the model sees for the tools of several MCP servers. A tool keeps its own name while no other
 * server (and no host tool) offers the same one; names that collide become `<server>__<tool>` on every
 * server that offers them, the server named by its `serverInfo.name`. Every name is made to fit the
 * model APIs' tool-name charset, `[A-Za-z0-9_-]{1,64}` (MCP allows `.` and 128 characters).
 */

/** One server's label and its tools' own names, in the server's order. */
export interface ServerToolNames {
  server: string;
  tools: readonly string[];
}

const MAX = 64;

/** `text` in the tool-name charset: other characters become `_`, cut to `max`, never empty. */
export function toolNameOf(text: string, max = MAX): string {
  const cleaned = text.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, max);
  return cleaned || 'tool';
}

/**
 * For each server, a map from a tool's own name to the name the model sees. `reserved` names (the host's
 * own tools) count as taken. Two servers with one label, or names that still meet after the prefix, are
 * told apart by a suffix (`_2`, …), in server order.
 */
export function exposedToolNames(
  servers: readonly ServerToolNames[],
  reserved: ReadonlySet<string> = new Set(),
): Array<Map<string, string>> {
  const labels: string[] = [];
  for (const { server } of servers) {
    const base = toolNameOf(server, 24);
    let label = base;
    for (let n = 2; labels.includes(label); n++) label = `${base}_${n}`;
    labels.push(label);
  }
  const count = new Map<string, number>();
  for (const { tools } of servers) for (const t of tools) count.set(toolNameOf(t), (count.get(toolNameOf(t)) ?? 0) + 1);
  const plain = (own: string) => count.get(own) === 1 && !reserved.has(own);
  // Plain names are unique by their count; they are taken first, so no prefixed name can take one.
  const taken = new Set(reserved);
  for (const own of count.keys()) if (plain(own)) taken.add(own);
  return servers.map(({ tools }, i) => {
    const names = new Map<string, string>();
    for (const t of tools) {
      const own = toolNameOf(t);
      if (plain(own)) {
        names.set(t, own);
        continue;
      }
      const base = toolNameOf(`${labels[i]}__${own}`);
      let name = base;
      for (let n = 2; taken.has(name); n++) name = `${base.slice(0, MAX - 1 - String(n).length)}_${n}`;
      taken.add(name);
      names.set(t, name);
    }
    return names;
  });
}
