import { describe, expect, it } from 'vitest';
import { INTERNED_MAX_BYTES, InternedStrings } from './internedStrings.ts';
import { WireReader } from './wireReader.ts';

const utf8 = new TextDecoder();

/** `texts` written one after another, each as protobuf writes a string (length, then its UTF-8 bytes). */
function wire(texts: string[]): Uint8Array {
  const parts: number[] = [];
  for (const t of texts) {
    const bytes = new TextEncoder().encode(t);
    let n = bytes.length;
    while (n >= 128) {
      parts.push((n & 127) | 128);
      n >>>= 7;
    }
    parts.push(n, ...bytes);
  }
  return Uint8Array.from(parts);
}

describe('equal strings of a decode read once', () => {
  it('gives every string its own text, whether read before or not, and makes each distinct text once', () => {
    // Many names alike (shared prefixes and tails), some repeated, past several growths of the table.
    const names = Array.from({ length: 20000 }, (_, k) => `/model.${k % 97}/conv/Conv_output_${k % 5003}`);
    const bytes = wire(names);
    const offsets: [number, number][] = [];
    for (let pos = 0, k = 0; k < names.length; k++) {
      const r = new WireReader(bytes);
      r.pos = pos;
      const length = r.size();
      offsets.push([r.pos, r.pos + length]);
      pos = r.pos + length;
    }
    const table = new InternedStrings(bytes);
    let made = 0;
    const make = (start: number, end: number) => (made++, utf8.decode(bytes.subarray(start, end)));
    offsets.forEach(([start, end], k) => expect(table.get(start, end, make)).toBe(names[k]));
    expect(made).toBe(new Set(names).size);
    // Read again: nothing new is made.
    offsets.forEach(([start, end], k) => expect(table.get(start, end, make)).toBe(names[k]));
    expect(made).toBe(new Set(names).size);
  });

  it('the wire reader reads short, long, empty, equal-length and non-ASCII strings as TextDecoder does, shared or not', () => {
    const texts = [
      '',
      'a',
      'x'.repeat(64),
      'x'.repeat(65),
      'y'.repeat(INTERNED_MAX_BYTES),
      'y'.repeat(INTERNED_MAX_BYTES + 1),
      'Conv_0',
      'Конв/вход',
      'Conv_0',
      '',
      'Конв/вход',
      'y'.repeat(INTERNED_MAX_BYTES + 1),
      'caf\u00e9',
      'cafe',
      // Equal lengths, other texts: the ASCII path's reused code array holds each one's own characters.
      'Relu_1',
      'z'.repeat(64),
      'Conv_0',
    ];
    for (const interned of [true, false]) {
      const r = new WireReader(wire(texts));
      expect(texts.map(() => r.string(interned))).toEqual(texts);
      expect(r.pos).toBe(r.len);
    }
  });
});
