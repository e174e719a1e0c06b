import { describe, expect, it } from 'vitest';
import { checkNpyInput, parseNpy, type NpyData } from './npy.ts';

/**
 * A .npy file as numpy.lib.format writes it: magic, version, header length (2 bytes in 1.0, 4
 * after), the header dict padded with spaces and a newline so the data starts 64-byte aligned.
 */
function npy(
  descr: string,
  shape: number[],
  data: Uint8Array,
  options: { version?: 1 | 2 | 3; fortran?: boolean; header?: string } = {},
): Uint8Array {
  const version = options.version ?? 1;
  const shapeText = shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(', ')})`;
  let header =
    options.header ??
    `{'descr': '${descr}', 'fortran_order': ${options.fortran ? 'True' : 'False'}, 'shape': ${shapeText}, }`;
  const prefix = version === 1 ? 10 : 12;
  const encoded = () => new TextEncoder().encode(header);
  while ((prefix + encoded().length + 1) % 64 !== 0) header += ' ';
  header += '\n';
  const headerBytes = encoded();
  const out = new Uint8Array(prefix + headerBytes.length + data.length);
  out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, version, 0]);
  const view = new DataView(out.buffer);
  if (version === 1) view.setUint16(8, headerBytes.length, true);
  else view.setUint32(8, headerBytes.length, true);
  out.set(headerBytes, prefix);
  out.set(data, prefix + headerBytes.length);
  return out;
}

/** Elements of any array the parser returns (bigint ones included). */
const list = (d: ArrayLike<number> | NpyData) => Array.from(d as ArrayLike<number | bigint>);

const bytesOf = (a: ArrayBufferView) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

describe('parseNpy', () => {
  it('reads float32 with its shape (format 1.0)', () => {
    const values = new Float32Array([0.5, -1, 3.25, 1e-8, 7, 8]);
    const a = parseNpy(npy('<f4', [1, 2, 3], bytesOf(values)));
    expect(a.dtype).toBe('float32');
    expect(a.dims).toEqual([1, 2, 3]);
    expect(a.data).toBeInstanceOf(Float32Array);
    expect(list(a.data)).toEqual(list(values));
  });

  it('reads format 2.0 and 3.0 (4-byte header length; UTF-8 header in 3.0)', () => {
    const values = new Float32Array([1, 2, 3]);
    expect(list(parseNpy(npy('<f4', [3], bytesOf(values), { version: 2 })).data)).toEqual([1, 2, 3]);
    expect(list(parseNpy(npy('<f4', [3], bytesOf(values), { version: 3 })).data)).toEqual([1, 2, 3]);
  });

  it('narrows float64 and float16 to Float32Array, keeping the file dtype', () => {
    const f8 = parseNpy(npy('<f8', [2], bytesOf(new Float64Array([0.1, -2.5]))));
    expect(f8.dtype).toBe('float64');
    expect(list(f8.data)).toEqual([Math.fround(0.1), -2.5]);
    const f2 = parseNpy(npy('<f2', [3], bytesOf(new Uint16Array([0x3c00, 0xc000, 0x3555]))));
    expect(f2.dtype).toBe('float16');
    expect(f2.data).toBeInstanceOf(Float32Array);
    expect(list(f2.data)).toEqual([1, -2, Math.fround(0.333251953125)]);
  });

  it('keeps integer types: |u1, <i8, <i4, |b1', () => {
    const u1 = parseNpy(npy('|u1', [2, 2], new Uint8Array([0, 1, 254, 255])));
    expect(u1.data).toBeInstanceOf(Uint8Array);
    expect([u1.dtype, list(u1.data)]).toEqual(['uint8', [0, 1, 254, 255]]);
    const i8 = parseNpy(npy('<i8', [2], bytesOf(new BigInt64Array([-3n, 1n << 40n]))));
    expect([i8.dtype, list(i8.data)]).toEqual(['int64', [-3n, 1n << 40n]]);
    const i4 = parseNpy(npy('<i4', [1], bytesOf(new Int32Array([-7]))));
    expect([i4.dtype, list(i4.data)]).toEqual(['int32', [-7]]);
    expect(parseNpy(npy('|b1', [1], new Uint8Array([1]))).dtype).toBe('bool');
  });

  it('swaps big-endian data', () => {
    const be = new Uint8Array(8);
    new DataView(be.buffer).setFloat32(0, 1.5, false);
    new DataView(be.buffer).setFloat32(4, -3, false);
    expect(list(parseNpy(npy('>f4', [2], be)).data)).toEqual([1.5, -3]);
  });

  it('reads scalars and empty arrays', () => {
    const scalar = parseNpy(npy('<f4', [], bytesOf(new Float32Array([4]))));
    expect(scalar.dims).toEqual([]);
    expect(list(scalar.data)).toEqual([4]);
    expect(parseNpy(npy('<f4', [0, 3], new Uint8Array(0))).data.length).toBe(0);
  });

  it('reads a file inside a larger buffer (offset views)', () => {
    const file = npy('<f4', [2], bytesOf(new Float32Array([1, 2])));
    const padded = new Uint8Array(file.length + 3);
    padded.set(file, 3);
    expect(list(parseNpy(padded.subarray(3)).data)).toEqual([1, 2]);
  });

  it('reads a Node Buffer from the shared pool (whose slice() is a view, not a copy)', () => {
    const file = npy('<f4', [2], bytesOf(new Float32Array([1, 2])));
    const pooled = Buffer.from(file); // small Buffers live at an offset in an 8 KiB pool
    expect(list(parseNpy(pooled).data)).toEqual([1, 2]);
  });

  it('refuses bad magic with NpyFormatError naming the file', () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0]);
    expect(() => parseNpy(png, 'input.npy')).toThrow(
      expect.objectContaining({ name: 'NpyFormatError', message: expect.stringContaining('input.npy') }),
    );
  });

  it('refuses truncated data and headers', () => {
    const file = npy('<f4', [4], bytesOf(new Float32Array([1, 2, 3, 4])));
    expect(() => parseNpy(file.subarray(0, file.length - 1), 'a.npy')).toThrow(
      expect.objectContaining({ name: 'NpyFormatError', message: expect.stringMatching(/truncated.*16 data bytes/) }),
    );
    expect(() => parseNpy(file.subarray(0, 30), 'a.npy')).toThrow(expect.objectContaining({ name: 'NpyFormatError' }));
  });

  it.each(['<c8', '|S3', '|O', '<M8'])('refuses dtype %s with NpyDtypeError', (descr) => {
    expect(() => parseNpy(npy(descr, [1], new Uint8Array(16)), 'a.npy')).toThrow(
      expect.objectContaining({ name: 'NpyDtypeError', message: expect.stringContaining(descr) }),
    );
  });

  it('refuses structured arrays with NpyDtypeError', () => {
    const header = "{'descr': [('x', '<f4'), ('y', '<f4')], 'fortran_order': False, 'shape': (1,), }";
    expect(() => parseNpy(npy('', [1], new Uint8Array(8), { header }))).toThrow(
      expect.objectContaining({ name: 'NpyDtypeError' }),
    );
  });

  it('refuses Fortran order with NpyFortranOrderError', () => {
    expect(() => parseNpy(npy('<f4', [2, 2], new Uint8Array(16), { fortran: true }), 'a.npy')).toThrow(
      expect.objectContaining({ name: 'NpyFortranOrderError', message: expect.stringContaining('ascontiguousarray') }),
    );
  });
});

describe('checkNpyInput', () => {
  const images = { name: 'images', elemType: 'float32', shape: [1, 3, 416, 416] };

  it('accepts an array of the input shape, and any float dtype for a float input', () => {
    expect(() => checkNpyInput({ dims: [1, 3, 416, 416], dtype: 'float32' }, images)).not.toThrow();
    expect(() => checkNpyInput({ dims: [1, 3, 416, 416], dtype: 'float64' }, images)).not.toThrow();
  });

  it('says which file, which shape and what the input expects', () => {
    expect(() => checkNpyInput({ dims: [1, 3, 224, 224], dtype: 'float32' }, images, 'input.npy')).toThrow(
      expect.objectContaining({
        name: 'NpyInputMismatchError',
        message: "input.npy has shape [1,3,224,224] but input 'images' expects [1,3,416,416].",
      }),
    );
    expect(() => checkNpyInput({ dims: [3, 416, 416], dtype: 'float32' }, images, 'x.npy')).toThrow(
      /x.npy has shape \[3,416,416\]/,
    );
  });

  it('matches symbolic dimensions: from dims when given, else consistently', () => {
    const input = { name: 'input', elemType: 'float32', shape: ['batch', 3, 'size', 'size'] };
    expect(() => checkNpyInput({ dims: [2, 3, 64, 64], dtype: 'float32' }, input)).not.toThrow();
    expect(() => checkNpyInput({ dims: [2, 3, 64, 32], dtype: 'float32' }, input, 'a.npy')).toThrow(
      /expects \[batch,3,size,size\]/,
    );
    expect(() => checkNpyInput({ dims: [1, 3, 64, 64], dtype: 'float32' }, input, 'a.npy', { size: 32 })).toThrow(
      /expects \[batch,3,32,32\]/,
    );
    expect(() =>
      checkNpyInput({ dims: [1, 3, 7, 9], dtype: 'float32' }, { ...input, shape: ['?', 3, '?', '?'] }),
    ).not.toThrow();
  });

  it('refuses float values that are NaN or infinite, counting them, and accepts finite ones', () => {
    const input = { name: 'state', elemType: 'float32', shape: [1, 4] };
    const array = (values: number[]) => ({ dims: [1, 4], dtype: 'float32' as const, data: Float32Array.from(values) });
    expect(() => checkNpyInput(array([0, -1, 2.5, 3e38]), input, 's.npy')).not.toThrow();
    expect(() => checkNpyInput(array([0, NaN, NaN, 1]), input, 's.npy')).toThrow(
      expect.objectContaining({
        name: 'NpyNonFiniteError',
        message: expect.stringMatching(/^s\.npy holds 2 NaN of its 4 values/),
      }),
    );
    expect(() => checkNpyInput(array([Infinity, NaN, -Infinity, 1]), input, 's.npy')).toThrow(
      /holds 1 NaN and 2 infinite of its 4 values/,
    );
    // Integer inputs are not checked (their values cannot be NaN).
    const ids = { name: 'ids', elemType: 'int64', shape: [2] };
    expect(() => checkNpyInput({ dims: [2], dtype: 'int64', data: BigInt64Array.of(1n, 2n) }, ids)).not.toThrow();
  });

  it('checks the element type', () => {
    expect(() => checkNpyInput({ dims: [1, 3, 416, 416], dtype: 'uint8' }, images, 'a.npy')).toThrow(
      expect.objectContaining({
        name: 'NpyInputMismatchError',
        message: expect.stringContaining("a.npy holds uint8 but input 'images' takes float32"),
      }),
    );
    const ids = { name: 'ids', elemType: 'int64', shape: [1, 8] };
    expect(() => checkNpyInput({ dims: [1, 8], dtype: 'int64' }, ids)).not.toThrow();
    expect(() => checkNpyInput({ dims: [1, 8], dtype: 'int32' }, ids)).toThrow(/takes int64/);
  });
});
