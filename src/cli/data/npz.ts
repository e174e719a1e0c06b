/**
 * NumPy `.npz` archives (np.savez, np.savez_compressed): a ZIP of .npy members, one per array, named as the
 * arrays were given (`np.savez(f, input=a, state=s, sr=r)` holds input.npy, state.npy, sr.npy). Read with the ZIP
 * central directory and node:zlib for deflated members; ZIP64 archives (over 4 GB) and encrypted members are
 * refused by name.
 */
import { inflateRawSync } from 'node:zlib';
import { NpyFormatError } from '../../core/preprocess/errors.ts';

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

/** The .npy members of an .npz archive's bytes, by array name (the member name without ".npy"). */
export function readNpz(bytes: Uint8Array, fileName: string): Map<string, Uint8Array> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let end = -1;
  for (let p = bytes.length - 22; p >= Math.max(0, bytes.length - 22 - 65535); p--) {
    if (view.getUint32(p, true) === EOCD) {
      end = p;
      break;
    }
  }
  if (end < 0) throw new NpyFormatError(`${fileName} is not an .npz archive (no ZIP directory at its end).`);
  const entries = view.getUint16(end + 10, true);
  let at = view.getUint32(end + 16, true);
  if (at === 0xffffffff || entries === 0xffff)
    throw new NpyFormatError(`${fileName} is a ZIP64 archive, which is not read: save smaller .npz files.`);
  const out = new Map<string, Uint8Array>();
  for (let k = 0; k < entries; k++) {
    if (at + 46 > bytes.length || view.getUint32(at, true) !== CENTRAL)
      throw new NpyFormatError(`${fileName}: its ZIP directory is damaged.`);
    const flags = view.getUint16(at + 8, true);
    const method = view.getUint16(at + 10, true);
    const compressed = view.getUint32(at + 20, true);
    const nameLength = view.getUint16(at + 28, true);
    const extraLength = view.getUint16(at + 30, true);
    const commentLength = view.getUint16(at + 32, true);
    const local = view.getUint32(at + 42, true);
    const name = new TextDecoder().decode(bytes.subarray(at + 46, at + 46 + nameLength));
    at += 46 + nameLength + extraLength + commentLength;
    if (!/\.npy$/i.test(name) || name.endsWith('/')) continue;
    if (flags & 1) throw new NpyFormatError(`${fileName}: member ${name} is encrypted.`);
    if (local + 30 > bytes.length || view.getUint32(local, true) !== LOCAL)
      throw new NpyFormatError(`${fileName}: member ${name} is damaged.`);
    const start = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
    const data = bytes.subarray(start, start + compressed);
    let npy: Uint8Array;
    if (method === 0) npy = data;
    else if (method === 8) npy = new Uint8Array(inflateRawSync(data));
    else
      throw new NpyFormatError(
        `${fileName}: member ${name} uses ZIP compression method ${method}; np.savez and np.savez_compressed write 0 or 8.`,
      );
    out.set(name.replace(/\.npy$/i, ''), npy);
  }
  return out;
}
