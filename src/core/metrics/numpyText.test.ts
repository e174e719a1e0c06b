import { describe, expect, it } from 'vitest';
import { numpyFloat32Text } from './numpyText.ts';

// Every expected string below is what numpy 2.4.6 prints for str(np.float32(value)).
describe('numpyFloat32Text', () => {
  it('writes the shortest digits that read back as the same float32', () => {
    expect(numpyFloat32Text(1 / 3)).toBe('0.33333334');
    expect(numpyFloat32Text(0.1)).toBe('0.1');
    expect(numpyFloat32Text(148.1308036086791)).toBe('148.1308');
    expect(numpyFloat32Text(1234.5678)).toBe('1234.5677');
  });

  it('keeps a ".0" on whole numbers', () => {
    expect(numpyFloat32Text(100)).toBe('100.0');
    expect(numpyFloat32Text(1)).toBe('1.0');
    expect(numpyFloat32Text(999999)).toBe('999999.0');
  });

  it('switches to scientific notation below 1e-4 and from 1e6, with a two-digit exponent', () => {
    expect(numpyFloat32Text(0.00012)).toBe('0.00012');
    // float32(0.0001) is 9.99999974e-05, just under the cut-off
    expect(numpyFloat32Text(0.0001)).toBe('1e-04');
    expect(numpyFloat32Text(1.5e-7)).toBe('1.5e-07');
    expect(numpyFloat32Text(999999.94)).toBe('999999.94');
    expect(numpyFloat32Text(1e6)).toBe('1e+06');
    expect(numpyFloat32Text(123456789)).toBe('1.2345679e+08');
    expect(numpyFloat32Text(3.4028235e38)).toBe('3.4028235e+38');
    expect(numpyFloat32Text(1e-45)).toBe('1e-45');
  });

  it('breaks exact decimal ties toward an even last digit, as Dragon4 does', () => {
    // float32 42195.0625 is exactly halfway between 42195.062 and 42195.063
    expect(numpyFloat32Text(42195.06219727022)).toBe('42195.062');
    expect(numpyFloat32Text(2050241.2974690543)).toBe('2.0502412e+06');
  });

  it('spells signs, zeros and non-finite values as numpy does', () => {
    expect(numpyFloat32Text(-2.5)).toBe('-2.5');
    expect(numpyFloat32Text(-1e-5)).toBe('-1e-05');
    expect(numpyFloat32Text(0)).toBe('0.0');
    expect(numpyFloat32Text(-0)).toBe('-0.0');
    expect(numpyFloat32Text(NaN)).toBe('nan');
    expect(numpyFloat32Text(Infinity)).toBe('inf');
    expect(numpyFloat32Text(-Infinity)).toBe('-inf');
    // 1e39 overflows float32
    expect(numpyFloat32Text(1e39)).toBe('inf');
  });
});
