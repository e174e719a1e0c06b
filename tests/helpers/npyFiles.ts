/**
 * .npy and .npz files written in code for the tests of tensor data folders: the format numpy writes (header
 * version 1.0, 64-byte aligned; ZIP members stored or deflated, with their CRC-32), so numpy reads them too.
 */
import { deflateRawSync } from 'node:zlib';

type Numeric = Float32Array | Float64Array | Uint16Array | Int8Array | Uint8Array | Int32Array | BigInt64Array;

/** A C-order .npy file of `data` shaped `dims`; `descr` as numpy writes it ('<f4', '<f2', '<i8', '|u1', …). */
export function npyBytes(data: Numeric, dims: number[], descr: string): Uint8Array {
  const shape = dims.length === 1 ? `(${dims[0]},)` : `(${dims.join(', ')})`;
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shape}, }`;
  while ((10 + header.length + 1) % 64 !== 0) header += ' ';
  header += '\n';
  const body = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  const bytes = new Uint8Array(10 + header.length + body.length);
  bytes.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0, header.length & 0xff, header.length >> 8]);
  bytes.set(new TextEncoder().encode(header), 10);
  bytes.set(body, 10 + header.length);
  return bytes;
}

function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const b of bytes) {
    crc ^= b;
    for (let k = 0; k < 8; k++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return (crc ^ 0xffffffff) >>> 0;
}

/** An .npz archive (np.savez, or np.savez_compressed with `deflate`) of the arrays, by name. */
export function npzBytes(arrays: Record<string, Uint8Array>, deflate = false): Uint8Array {
  const locals: Uint8Array[] = [];
  const centrals: Uint8Array[] = [];
  let offset = 0;
  for (const [name, npy] of Object.entries(arrays)) {
    const fileName = new TextEncoder().encode(`${name}.npy`);
    const data = deflate ? new Uint8Array(deflateRawSync(npy)) : npy;
    const crc = crc32(npy);
    const local = new Uint8Array(30 + fileName.length + data.length);
    const lv = new DataView(local.buffer);
    lv.setUint32(0, 0x04034b50, true);
    lv.setUint16(4, 20, true);
    lv.setUint16(8, deflate ? 8 : 0, true);
    lv.setUint32(14, crc, true);
    lv.setUint32(18, data.length, true);
    lv.setUint32(22, npy.length, true);
    lv.setUint16(26, fileName.length, true);
    local.set(fileName, 30);
    local.set(data, 30 + fileName.length);
    const central = new Uint8Array(46 + fileName.length);
    const cv = new DataView(central.buffer);
    cv.setUint32(0, 0x02014b50, true);
    cv.setUint16(4, 20, true);
    cv.setUint16(6, 20, true);
    cv.setUint16(10, deflate ? 8 : 0, true);
    cv.setUint32(16, crc, true);
    cv.setUint32(20, data.length, true);
    cv.setUint32(24, npy.length, true);
    cv.setUint16(28, fileName.length, true);
    cv.setUint32(42, offset, true);
    central.set(fileName, 46);
    locals.push(local);
    centrals.push(central);
    offset += local.length;
  }
  const centralSize = centrals.reduce((s, c) => s + c.length, 0);
  const end = new Uint8Array(22);
  const ev = new DataView(end.buffer);
  ev.setUint32(0, 0x06054b50, true);
  ev.setUint16(8, centrals.length, true);
  ev.setUint16(10, centrals.length, true);
  ev.setUint32(12, centralSize, true);
  ev.setUint32(16, offset, true);
  const out = new Uint8Array(offset + centralSize + 22);
  let at = 0;
  for (const part of [...locals, ...centrals, end]) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
