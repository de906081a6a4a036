/**
 * Lossless re-encoding of Chromium's screenshot PNGs, so the README's images stay small without a smaller
 * viewport or a lossy format. Chromium picks a PNG filter per row for speed; a page of flat colours and
 * text compresses better with one filter for every row (usually "None") at zlib level 9: about a fifth
 * smaller on these pages. The pixels are unchanged. Only what Chromium writes is read: 8-bit RGB or RGBA,
 * not interlaced.
 */
import { crc32, deflateSync, inflateSync } from 'node:zlib';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export class PngFormatError extends Error {
  readonly code = 'unsupported_png';
}

interface Image {
  header: Buffer;
  width: number;
  height: number;
  /** Bytes per pixel. */
  bpp: number;
  /** The unfiltered pixel rows, back to back. */
  pixels: Buffer;
}

const paeth = (a: number, b: number, c: number) => {
  const pa = Math.abs(b - c);
  const pb = Math.abs(a - c);
  const pc = Math.abs(a + b - 2 * c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
};

/** What filter `type` predicts for byte `i` of a row, from its left (a), upper (b) and upper-left (c) neighbours. */
function predict(type: number, a: number, b: number, c: number): number {
  switch (type) {
    case 0:
      return 0;
    case 1:
      return a;
    case 2:
      return b;
    case 3:
      return (a + b) >> 1;
    case 4:
      return paeth(a, b, c);
    default:
      throw new PngFormatError(`unknown PNG row filter ${type}`);
  }
}

function decode(png: Buffer): Image {
  if (!png.subarray(0, 8).equals(SIGNATURE)) throw new PngFormatError('not a PNG file');
  let header: Buffer | undefined;
  const data: Buffer[] = [];
  for (let at = 8; at < png.length;) {
    const length = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    if (type === 'IHDR') header = png.subarray(at + 8, at + 8 + length);
    if (type === 'IDAT') data.push(png.subarray(at + 8, at + 8 + length));
    at += 12 + length;
  }
  if (!header) throw new PngFormatError('PNG without IHDR');
  const [depth, colour, , , interlace] = header.subarray(8, 13);
  if (depth !== 8 || (colour !== 2 && colour !== 6) || interlace !== 0) {
    throw new PngFormatError(
      `only 8-bit RGB/RGBA non-interlaced PNGs are handled, got depth ${depth}, colour type ${colour}, interlace ${interlace}`,
    );
  }
  const width = header.readUInt32BE(0);
  const height = header.readUInt32BE(4);
  const bpp = colour === 6 ? 4 : 3;
  const stride = width * bpp;
  const filtered = inflateSync(Buffer.concat(data));
  const pixels = Buffer.alloc(height * stride);
  for (let y = 0; y < height; y++) {
    const type = filtered[y * (stride + 1)]!;
    const src = y * (stride + 1) + 1;
    const row = y * stride;
    for (let i = 0; i < stride; i++) {
      const a = i >= bpp ? pixels[row + i - bpp]! : 0;
      const b = y > 0 ? pixels[row - stride + i]! : 0;
      const c = y > 0 && i >= bpp ? pixels[row - stride + i - bpp]! : 0;
      pixels[row + i] = (filtered[src + i]! + predict(type, a, b, c)) & 255;
    }
  }
  return { header, width, height, bpp, pixels };
}

/** The image's rows, each filtered with `type`, deflated as tightly as zlib goes. */
function encodeRows({ width, height, bpp, pixels }: Image, type: number): Buffer {
  const stride = width * bpp;
  const out = Buffer.alloc(height * (stride + 1));
  for (let y = 0; y < height; y++) {
    const row = y * stride;
    const dst = y * (stride + 1);
    out[dst] = type;
    for (let i = 0; i < stride; i++) {
      const a = i >= bpp ? pixels[row + i - bpp]! : 0;
      const b = y > 0 ? pixels[row - stride + i]! : 0;
      const c = y > 0 && i >= bpp ? pixels[row - stride + i - bpp]! : 0;
      out[dst + 1 + i] = (pixels[row + i]! - predict(type, a, b, c)) & 255;
    }
  }
  return deflateSync(out, { level: 9, memLevel: 9 });
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
}

/** The same pixels in the smallest of a few encodings; the input itself when none is smaller. */
export function recompressPng(png: Buffer): Buffer {
  const image = decode(png);
  // None and Up win on screenshots; Sub, Average and Paeth were never smaller on these pages.
  const data = [0, 2].map((type) => encodeRows(image, type)).reduce((best, next) => (next.length < best.length ? next : best));
  const out = Buffer.concat([SIGNATURE, chunk('IHDR', image.header), chunk('IDAT', data), chunk('IEND', Buffer.alloc(0))]);
  // Lossless or nothing: a mistake here must not end up in the README.
  if (!decode(out).pixels.equals(image.pixels)) throw new PngFormatError('re-encoded PNG differs from the original; keeping nothing');
  return out.length < png.length ? out : png;
}
