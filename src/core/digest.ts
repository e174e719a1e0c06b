/**
 * A 128-bit digest of bytes or text, for caches that must tell data apart by content (the recovery's memo of tuned
 * layers keys on what determines a layer's inputs). Not cryptographic and not for anything an adversary chooses: four
 * 32-bit lanes each fold every fourth little-endian word with a multiply and a rotate, then every output word mixes
 * all four lanes and the length through an avalanche. The same in every runtime (Node, workers, the browser).
 */

const P1 = 0x9e3779b1;
const P2 = 0x85ebca77;
const P3 = 0xc2b2ae3d;
const P4 = 0x27d4eb2f;

const rotl = (x: number, r: number) => (x << r) | (x >>> (32 - r));

/** Every bit of x reaches every bit of the result (murmur3's finaliser). */
function avalanche(x: number): number {
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
  return (x ^ (x >>> 16)) >>> 0;
}

/** The digest of `bytes` (seeded by `seed`), as 32 hex digits. */
export function digestBytes(bytes: Uint8Array, seed = 0): string {
  let a = (seed + P1) | 0;
  let b = (seed ^ P2) | 0;
  let c = (seed + P3) | 0;
  let d = (seed ^ P4) | 0;
  const n = bytes.length;
  const whole = n - (n % 16);
  let i = 0;
  for (; i < whole; i += 16) {
    a = Math.imul(rotl((a + Math.imul(word(bytes, i), P2)) | 0, 13), P1);
    b = Math.imul(rotl((b + Math.imul(word(bytes, i + 4), P2)) | 0, 13), P1);
    c = Math.imul(rotl((c + Math.imul(word(bytes, i + 8), P2)) | 0, 13), P1);
    d = Math.imul(rotl((d + Math.imul(word(bytes, i + 12), P2)) | 0, 13), P1);
  }
  // The last 0–15 bytes, one at a time into the lanes in turn.
  for (let lane = 0; i < n; i++, lane = (lane + 1) & 3) {
    const v = Math.imul(bytes[i] + 1, P3);
    if (lane === 0) a = Math.imul(rotl(a ^ v, 11), P1);
    else if (lane === 1) b = Math.imul(rotl(b ^ v, 11), P1);
    else if (lane === 2) c = Math.imul(rotl(c ^ v, 11), P1);
    else d = Math.imul(rotl(d ^ v, 11), P1);
  }
  const len = n | 0;
  const h1 = avalanche(a ^ rotl(b, 7) ^ rotl(c, 13) ^ rotl(d, 19) ^ len);
  const h2 = avalanche(b ^ rotl(c, 7) ^ rotl(d, 13) ^ rotl(a, 19) ^ Math.imul(len, P2));
  const h3 = avalanche(c ^ rotl(d, 7) ^ rotl(a, 13) ^ rotl(b, 19) ^ Math.imul(len, P3));
  const h4 = avalanche(d ^ rotl(a, 7) ^ rotl(b, 13) ^ rotl(c, 19) ^ Math.imul(len, P4));
  return [h1, h2, h3, h4].map((h) => h.toString(16).padStart(8, '0')).join('');
}

function word(b: Uint8Array, i: number): number {
  return b[i] | (b[i + 1] << 8) | (b[i + 2] << 16) | (b[i + 3] << 24);
}

const encoder = new TextEncoder();

/** The digest of `text` (UTF-8). */
export function digestText(text: string): string {
  return digestBytes(encoder.encode(text));
}

/** The bytes of a typed array as they lie in memory (a view, not a copy). */
export function bytesOf(a: ArrayBufferView): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
}
