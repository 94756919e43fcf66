// `node scripts/make-icons.mjs [outDir]`: draws the app icon with code and writes every file the
// installers need into resources/icons/ (or outDir): NxN.png for Linux (16 … 1024), icon.ico for
// Windows (16 … 256, PNG entries), icon.icns for macOS (16 … 1024). The drawing is a function
// of the size alone, so running it again gives the same pixels.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';

export const PNG_SIZES = [16, 32, 48, 64, 128, 256, 512, 1024];
export const ICO_SIZES = [16, 24, 32, 48, 64, 128, 256];
/** icns chunk types and the pixel size each holds (the @2x types hold twice their point size). */
export const ICNS_TYPES = [
  ['icp4', 16], ['icp5', 32], ['icp6', 64], ['ic07', 128], ['ic08', 256], ['ic09', 512], ['ic10', 1024],
  ['ic11', 32], ['ic12', 64], ['ic13', 256], ['ic14', 512],
];

// ---- the drawing: signed distances in a unit square, coverage from the distance per pixel ----

function roundBox(x, y, cx, cy, hw, hh, r) {
  const qx = Math.abs(x - cx) - hw + r;
  const qy = Math.abs(y - cy) - hh + r;
  return Math.hypot(Math.max(qx, 0), Math.max(qy, 0)) + Math.min(Math.max(qx, qy), 0) - r;
}

function circle(x, y, cx, cy, r) {
  return Math.hypot(x - cx, y - cy) - r;
}

const mix = (a, b, t) => a.map((v, i) => v + (b[i] - v) * t);
const coverage = (d, px) => Math.min(1, Math.max(0, 0.5 - d / px));

/** The layers, back to front: [distance(x, y), colour(x, y)]. */
const LAYERS = [
  // the tile: a rounded square with the macOS margin, a cool vertical gradient
  [(x, y) => roundBox(x, y, 0.5, 0.5, 0.41, 0.41, 0.09), (_x, y) => mix([52, 72, 130], [21, 23, 28], Math.min(1, Math.max(0, (y - 0.09) / 0.82)))],
  // the hammer's head
  [(x, y) => roundBox(x, y, 0.5, 0.34, 0.25, 0.075, 0.03), () => [236, 239, 245]],
  // the handle
  [(x, y) => roundBox(x, y, 0.5, 0.58, 0.055, 0.22, 0.04), () => [236, 239, 245]],
  // the spark
  [(x, y) => circle(x, y, 0.73, 0.66, 0.065), () => [255, 176, 46]],
];

/** The icon at `size`×`size` as straight RGBA bytes. */
export function renderIcon(size) {
  const out = Buffer.alloc(size * size * 4);
  const px = 1 / size;
  for (let j = 0; j < size; j++) {
    for (let i = 0; i < size; i++) {
      const x = (i + 0.5) * px;
      const y = (j + 0.5) * px;
      // premultiplied "over" compositing
      let r = 0, g = 0, b = 0, a = 0;
      for (const [dist, colour] of LAYERS) {
        const c = coverage(dist(x, y), px);
        if (c === 0) continue;
        const [cr, cg, cb] = colour(x, y);
        r = cr * c + r * (1 - c);
        g = cg * c + g * (1 - c);
        b = cb * c + b * (1 - c);
        a = c + a * (1 - c);
      }
      const o = (j * size + i) * 4;
      out[o] = a ? Math.round(r / a) : 0;
      out[o + 1] = a ? Math.round(g / a) : 0;
      out[o + 2] = a ? Math.round(b / a) : 0;
      out[o + 3] = Math.round(a * 255);
    }
  }
  return out;
}

// ---- file formats ----

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(buf) {
  let c = 0xffffffff;
  for (const byte of buf) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** An 8-bit RGBA PNG (no filtering, deflate level 9). */
export function encodePng(size, rgba) {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 6; // RGBA
  const raw = Buffer.alloc(size * (size * 4 + 1));
  for (let j = 0; j < size; j++) rgba.copy(raw, j * (size * 4 + 1) + 1, j * size * 4, (j + 1) * size * 4);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', zlib.deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A Windows .ico whose entries are PNGs (a 256 entry is written as width 0). */
export function encodeIco(pngs) {
  const head = Buffer.alloc(6 + 16 * pngs.length);
  head.writeUInt16LE(0, 0);
  head.writeUInt16LE(1, 2);
  head.writeUInt16LE(pngs.length, 4);
  let offset = head.length;
  pngs.forEach(({ size, png }, n) => {
    const e = 6 + n * 16;
    head[e] = size >= 256 ? 0 : size;
    head[e + 1] = size >= 256 ? 0 : size;
    head.writeUInt16LE(1, e + 4); // colour planes
    head.writeUInt16LE(32, e + 6); // bits per pixel
    head.writeUInt32LE(png.length, e + 8);
    head.writeUInt32LE(offset, e + 12);
    offset += png.length;
  });
  return Buffer.concat([head, ...pngs.map((p) => p.png)]);
}

/** A macOS .icns of PNG chunks. */
export function encodeIcns(chunks) {
  const parts = chunks.map(({ type, png }) => {
    const h = Buffer.alloc(8);
    h.write(type, 0, 'latin1');
    h.writeUInt32BE(png.length + 8, 4);
    return Buffer.concat([h, png]);
  });
  const h = Buffer.alloc(8);
  h.write('icns', 0, 'latin1');
  h.writeUInt32BE(8 + parts.reduce((n, p) => n + p.length, 0), 4);
  return Buffer.concat([h, ...parts]);
}

/** Every icon file by name. */
export function makeIcons() {
  const pngs = new Map();
  const png = (size) => {
    if (!pngs.has(size)) pngs.set(size, encodePng(size, renderIcon(size)));
    return pngs.get(size);
  };
  const files = new Map();
  for (const size of PNG_SIZES) files.set(`${size}x${size}.png`, png(size));
  files.set('icon.ico', encodeIco(ICO_SIZES.map((size) => ({ size, png: png(size) }))));
  files.set('icon.icns', encodeIcns(ICNS_TYPES.map(([type, size]) => ({ type, png: png(size) }))));
  return files;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const outDir = path.resolve(process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'resources', 'icons'));
  fs.mkdirSync(outDir, { recursive: true });
  for (const [name, bytes] of makeIcons()) fs.writeFileSync(path.join(outDir, name), bytes);
  console.log(`icons written to ${path.relative(process.cwd(), outDir) || '.'}`);
}
