import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { sha256Hex } from './sha256.ts';

const text = (s: string) => new TextEncoder().encode(s);

describe('sha256Hex', () => {
  it('gives the FIPS 180-4 example digests', async () => {
    expect(await sha256Hex(text(''))).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(await sha256Hex(text('abc'))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(await sha256Hex(text('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq'))).toBe(
      '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    );
  });

  it('agrees with node:crypto on every length around the padding boundaries, and on a large buffer', async () => {
    const bytes = new Uint8Array(200);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 131 + 7) & 0xff;
    for (let n = 0; n <= 200; n++) {
      const part = bytes.subarray(0, n);
      expect(await sha256Hex(part)).toBe(createHash('sha256').update(part).digest('hex'));
    }
    const big = new Uint8Array(3 * 2 ** 20 + 17).map((_, i) => (i * 2654435761) >>> 24);
    expect(await sha256Hex(big)).toBe(createHash('sha256').update(big).digest('hex'));
  });

  it('hashes a view by its own bytes, not its whole buffer', async () => {
    const buffer = text('xxabcxx');
    expect(await sha256Hex(buffer.subarray(2, 5))).toBe(await sha256Hex(text('abc')));
  });
});
