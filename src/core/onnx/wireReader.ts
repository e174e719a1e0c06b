/**
 * Reading the protobuf wire format by hand: tags, varints, fixed-width numbers, length-delimited runs,
 * packed arrays, skipping unknown fields. schemaDecoder.ts builds ONNX messages from these reads.
 *
 * It exists because protobufjs compiles its decoders with `new Function`, which the page's content security
 * policy forbids (script-src without 'unsafe-eval'): with this reader the same decode runs on the page and in the
 * workers. Every read behaves as protobufjs 8's Reader does where a malformed file could tell them apart (the
 * tests pin the two equal on whole corpora and on cut and damaged files): the same errors with the same texts
 * ("index out of range: …", which decode.ts takes for a truncated model), 64-bit integers as plain numbers
 * (protobufjs without Long: exact up to 2^53), `bytes` as views into the input, and a length-delimited message
 * narrowing `len` to its own end while it is read.
 */

import { INTERNED_MAX_BYTES, InternedStrings } from './internedStrings.ts';

/** protobufjs's own text: decode.ts names a truncated model by it. */
function indexOutOfRange(reader: WireReader, length = 1): RangeError {
  return new RangeError(`index out of range: ${reader.pos} + ${length} > ${reader.len}`);
}

/** Nesting deeper than this is refused, as protobufjs (and protoc's default) refuse it. */
export const RECURSION_LIMIT = 100;

const utf8 = new TextDecoder('utf-8');

/** Plain arrays of each short length, reused to hold a name's character codes (decodeText). */
const ASCII_SCRATCH: number[][] = [];

export class WireReader {
  /** Read position. */
  pos = 0;
  /** End of what may be read now: the input's length, or the end of the message being read. */
  len: number;
  private view: DataView | null = null;
  /** The strings read so far, made once each (internedStrings.ts). */
  private interned: InternedStrings | null = null;

  constructor(readonly buf: Uint8Array) {
    this.len = buf.length;
  }

  /** A varint of up to four bytes at the very end of what may be read. */
  private varint32NearEnd(): number {
    let value = 0;
    for (let i = 0; i < 4; ++i) {
      if (this.pos >= this.len) throw indexOutOfRange(this);
      const b = this.buf[this.pos++];
      value = (value | ((b & 127) << (i * 7))) >>> 0;
      if (b < 128) return value;
    }
    throw indexOutOfRange(this);
  }

  /** True when a varint starts within five bytes of the end and goes on: read it byte by byte, checked. */
  private nearEnd(): boolean {
    if (this.len - this.pos < 5) {
      if (this.pos >= this.len) throw indexOutOfRange(this);
      if (this.buf[this.pos] >= 128) return true;
    }
    return false;
  }

  /**
   * A 32-bit varint as protobufjs reads each kind: a value (a longer varint keeps its low 32 bits), a field's tag
   * (at most five bytes, within 32 bits), or a length prefix (the same, with its own error).
   */
  private varint32(kind: 'value' | 'tag' | 'size'): number {
    if (this.nearEnd()) return this.varint32NearEnd();
    const buf = this.buf;
    let pos = this.pos;
    let value = 0;
    for (let shift = 0; shift < 28; shift += 7) {
      const b = buf[pos++];
      value = (value | ((b & 127) << shift)) >>> 0;
      if (b < 128) return ((this.pos = pos), value);
    }
    const fifth = buf[pos++];
    this.pos = pos;
    if (kind === 'tag') {
      if (fifth < 128 && (fifth & 112) === 0) return (value | ((fifth & 15) << 28)) >>> 0;
      throw new Error('invalid tag encoding');
    }
    if (kind === 'size') {
      if (fifth > 7) throw new Error('invalid length encoding');
      return (value | (fifth << 28)) >>> 0;
    }
    value = (value | ((fifth & 15) << 28)) >>> 0;
    if (fifth < 128) return value;
    for (let i = 0; i < 5; ++i) {
      if (pos >= this.len) {
        this.pos = pos;
        throw indexOutOfRange(this);
      }
      if (buf[pos++] < 128) return ((this.pos = pos), value);
    }
    this.pos = pos;
    throw new Error('invalid varint encoding');
  }

  /** An unsigned 32-bit varint (a longer one keeps its low 32 bits). */
  uint32(): number {
    return this.varint32('value');
  }

  /** A field's tag: field number << 3 | wire type. */
  tag(): number {
    return this.varint32('tag');
  }

  /** A length prefix. */
  size(): number {
    return this.varint32('size');
  }

  int32(): number {
    return this.uint32() | 0;
  }

  /** A 64-bit varint as a number (two's complement unless `unsigned`), as protobufjs's LongBits.toNumber gives it. */
  int64(unsigned = false): number {
    const buf = this.buf;
    let lo = 0;
    let hi = 0;
    let i = 0;
    if (this.len - this.pos > 4) {
      for (; i < 4; ++i) {
        lo = (lo | ((buf[this.pos] & 127) << (i * 7))) >>> 0;
        if (buf[this.pos++] < 128) return longToNumber(lo, hi, unsigned);
      }
      lo = (lo | ((buf[this.pos] & 127) << 28)) >>> 0;
      hi = (hi | ((buf[this.pos] & 127) >> 4)) >>> 0;
      if (buf[this.pos++] < 128) return longToNumber(lo, hi, unsigned);
      i = 0;
    } else {
      for (; i < 4; ++i) {
        if (this.pos >= this.len) throw indexOutOfRange(this);
        lo = (lo | ((buf[this.pos] & 127) << (i * 7))) >>> 0;
        if (buf[this.pos++] < 128) return longToNumber(lo, hi, unsigned);
      }
      throw indexOutOfRange(this);
    }
    const fast = this.len - this.pos > 4;
    for (; i < 5; ++i) {
      if (!fast && this.pos >= this.len) throw indexOutOfRange(this);
      hi = (hi | ((buf[this.pos] & 127) << (i * 7 + 3))) >>> 0;
      if (buf[this.pos++] < 128) return longToNumber(lo, hi, unsigned);
    }
    throw new Error('invalid varint encoding');
  }

  uint64(): number {
    return this.int64(true);
  }

  float(): number {
    if (this.pos + 4 > this.len) throw indexOutOfRange(this, 4);
    const value = this.dataView().getFloat32(this.pos, true);
    this.pos += 4;
    return value;
  }

  double(): number {
    if (this.pos + 8 > this.len) throw indexOutOfRange(this, 4);
    const value = this.dataView().getFloat64(this.pos, true);
    this.pos += 8;
    return value;
  }

  /** A length-delimited run, as a view into the input (no copy). */
  bytes(): Uint8Array {
    const length = this.size();
    const start = this.pos;
    const end = start + length;
    if (end > this.len) throw indexOutOfRange(this, length);
    this.pos = end;
    return this.buf.subarray(start, end);
  }

  /** A UTF-8 string; `interned`: one string for equal bytes within this input (internedStrings.ts). */
  string(interned = true): string {
    const length = this.size();
    const start = this.pos;
    const end = start + length;
    if (end > this.len) throw indexOutOfRange(this, length);
    this.pos = end;
    // A name read before is the same string again (internedStrings.ts).
    if (interned && length <= INTERNED_MAX_BYTES)
      return (this.interned ??= new InternedStrings(this.buf)).get(start, end, this.decodeText);
    return this.decodeText(start, end);
  }

  /** The UTF-8 text of buf[start .. end). */
  private readonly decodeText = (start: number, end: number): string => {
    const buf = this.buf;
    // Names are short and ASCII: read them here rather than pay TextDecoder's call for each.
    if (end - start <= 64) {
      let ascii = true;
      for (let i = start; i < end; i++)
        if (buf[i] >= 128) {
          ascii = false;
          break;
        }
      if (ascii) {
        // One reused plain array a length: apply() on a typed array view is V8's slow path, and a view a name is garbage.
        const codes = (ASCII_SCRATCH[end - start] ??= new Array<number>(end - start).fill(0));
        for (let i = start; i < end; i++) codes[i - start] = buf[i];
        return String.fromCharCode.apply(null, codes);
      }
    }
    return utf8.decode(buf.subarray(start, end));
  };

  /** Packed varints (int32 values) appended to `array`. */
  int32s(array: number[]): number[] {
    const end = this.size() + this.pos;
    const len = this.len;
    const buf = this.buf;
    let pos = this.pos;
    if (end > len) throw indexOutOfRange(this, end - this.pos);
    this.len = end;
    while (pos < end) {
      const b = buf[pos++];
      if (b < 128) array.push(b);
      else {
        this.pos = pos - 1;
        array.push(this.int32());
        pos = this.pos;
      }
    }
    this.pos = pos;
    if (pos !== end) throw new RangeError('index out of range');
    this.len = len;
    return array;
  }

  /** Packed 64-bit varints appended to `array`. */
  int64s(array: number[], unsigned = false): number[] {
    const end = this.size() + this.pos;
    const len = this.len;
    if (end > len) throw indexOutOfRange(this, end - this.pos);
    this.len = end;
    while (this.pos < end) array.push(this.int64(unsigned));
    if (this.pos !== end) throw new RangeError('index out of range');
    this.len = len;
    return array;
  }

  /** Packed little-endian floats (4 bytes) or doubles (8) appended to `array`. */
  fixedFloats(array: number[], width: 4 | 8): number[] {
    const length = this.size();
    const end = this.pos + length;
    if (end > this.len) throw indexOutOfRange(this, length);
    const count = Math.floor(length / width);
    const view = this.dataView();
    let pos = this.pos;
    let i = array.length;
    array.length = i + count;
    if (width === 4) for (let k = 0; k < count; ++k, pos += 4) array[i++] = view.getFloat32(pos, true);
    else for (let k = 0; k < count; ++k, pos += 8) array[i++] = view.getFloat64(pos, true);
    this.pos = pos;
    if (pos !== end) throw indexOutOfRange(this, width);
    return array;
  }

  /** Skips a varint. */
  private skipVarint(): void {
    do {
      if (this.pos >= this.len) throw indexOutOfRange(this);
    } while (this.buf[this.pos++] & 128);
  }

  private skip(length: number): void {
    if (this.pos + length > this.len) throw indexOutOfRange(this, length);
    this.pos += length;
  }

  /** Skips the value of an unknown field (groups included), with protobufjs's checks. */
  skipType(wireType: number, depth = 0, fieldNumber?: number): void {
    if (depth > RECURSION_LIMIT) throw new Error('max depth exceeded');
    if (fieldNumber === 0) throw new Error('illegal tag: field number 0');
    switch (wireType) {
      case 0:
        this.skipVarint();
        break;
      case 1:
        this.skip(8);
        break;
      case 2:
        this.skip(this.size());
        break;
      case 3:
        for (;;) {
          const tag = this.tag();
          const nested = tag >>> 3;
          const type = tag & 7;
          if (!nested) throw new Error('illegal tag: field number 0');
          if (type === 4) {
            if (fieldNumber !== undefined && nested !== fieldNumber) throw new Error('invalid end group tag');
            break;
          }
          this.skipType(type, depth + 1, nested);
        }
        break;
      case 5:
        this.skip(4);
        break;
      default:
        throw new Error(`invalid wire type ${wireType} at offset ${this.pos}`);
    }
  }

  private dataView(): DataView {
    return (this.view ??= new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength));
  }
}

/** Two's complement for signed values (LongBits.toNumber); exact up to 2^53. */
function longToNumber(lo: number, hi: number, unsigned: boolean): number {
  if (!unsigned && hi >>> 31) {
    const nlo = (~lo + 1) >>> 0;
    let nhi = ~hi >>> 0;
    if (!nlo) nhi = (nhi + 1) >>> 0;
    return -(nlo + nhi * 4294967296);
  }
  return lo + hi * 4294967296;
}
