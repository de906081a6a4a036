/** The files of a packed npm tarball (gzip'd ustar, as `npm pack` writes it), read without unpacking to disk. */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';

/** Path inside the package (the leading `package/` removed) → contents. */
export function readTarball(path: string): Map<string, Buffer> {
  const tar = gunzipSync(readFileSync(path));
  const files = new Map<string, Buffer>();
  const text = (start: number, length: number) =>
    tar
      .subarray(start, start + length)
      .toString('utf8')
      .replace(/\0.*$/s, '');
  let paxPath: string | undefined;
  for (let at = 0; at + 512 <= tar.length;) {
    const header = tar.subarray(at, at + 512);
    if (header.every((b) => b === 0)) break;
    const size = parseInt(text(at + 124, 12).trim() || '0', 8);
    const type = String.fromCharCode(header[156] ?? 0);
    const prefix = text(at + 345, 155);
    const name = paxPath ?? (prefix ? `${prefix}/${text(at, 100)}` : text(at, 100));
    const body = tar.subarray(at + 512, at + 512 + size);
    paxPath = undefined;
    if (type === 'x') {
      // A PAX header: `<len> path=<value>\n` records for the next entry.
      paxPath = /\d+ path=([^\n]*)\n/.exec(body.toString('utf8'))?.[1];
    } else if (type === '0' || type === '\0') {
      files.set(name.replace(/^package\//, ''), Buffer.from(body));
    }
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return files;
}
