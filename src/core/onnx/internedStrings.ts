/**
 * Equal strings of one decoded file made one string: the wire reader (wireReader.ts) looks each short string's bytes
 * up here before it makes a string of them. A tensor name is written once where a node makes it and again wherever a
 * node reads it, an initializer or a value_info names it (a 67,000-node QDQ file holds some 300,000 such names for
 * 150,000 tensors), and an op type once a node: read once each, they are not made again, and every Map that later
 * looks a name up finds its hash already computed and its key by identity. Strings cannot be told apart by identity
 * in JavaScript, so nothing that reads the model sees a difference.
 *
 * Bytes are hashed (FNV-1a) into an open-addressed table of the entries' positions in the input; a hit is checked
 * byte for byte. The table lives as long as one decode.
 */

/** Strings longer than this (doc strings, long scoped names) are decoded each time, not looked up. */
export const INTERNED_MAX_BYTES = 256;

export class InternedStrings {
  private slots = new Int32Array(1 << 12);
  private mask = (1 << 12) - 1;
  private readonly hashes: number[] = [];
  private readonly starts: number[] = [];
  private readonly lengths: number[] = [];
  private readonly strings: string[] = [];

  constructor(private readonly buf: Uint8Array) {}

  /**
   * The string of buf[start .. end) (at most INTERNED_MAX_BYTES), from this table when the same bytes were read
   * before, else made by `make` and kept.
   */
  get(start: number, end: number, make: (start: number, end: number) => string): string {
    const buf = this.buf;
    let h = 0x811c9dc5;
    for (let i = start; i < end; i++) h = Math.imul(h ^ buf[i], 0x01000193);
    const length = end - start;
    const { slots, mask, hashes, starts, lengths } = this;
    let slot = h & mask;
    for (let e = slots[slot] - 1; e >= 0; e = slots[slot] - 1) {
      if (hashes[e] === h && lengths[e] === length && this.sameBytes(starts[e], start, length)) return this.strings[e];
      slot = (slot + 1) & mask;
    }
    const s = make(start, end);
    const entry = this.strings.length;
    this.strings.push(s);
    hashes.push(h);
    starts.push(start);
    lengths.push(length);
    slots[slot] = entry + 1;
    if (2 * (entry + 1) > slots.length) this.grow();
    return s;
  }

  private sameBytes(a: number, b: number, length: number): boolean {
    const buf = this.buf;
    // Names share long prefixes ("/model.22/…"): compare from the end.
    for (let k = length - 1; k >= 0; k--) if (buf[a + k] !== buf[b + k]) return false;
    return true;
  }

  /** Doubles the table and places every entry again. */
  private grow(): void {
    const slots = new Int32Array(this.slots.length * 2);
    const mask = slots.length - 1;
    for (let e = 0; e < this.hashes.length; e++) {
      let slot = this.hashes[e] & mask;
      while (slots[slot] !== 0) slot = (slot + 1) & mask;
      slots[slot] = e + 1;
    }
    this.slots = slots;
    this.mask = mask;
  }
}
