/**
 * Numbers as people read them: byte sizes in decimal units (kB, MB, GB, as file managers on most
 * systems show them) and large counts with K/M/B. Exact values go in tooltips, via `exact`.
 */

const BYTE_UNITS = ['B', 'kB', 'MB', 'GB', 'TB'];

/** A byte count in human units: 1270727 → "1.27 MB". */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '—';
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < BYTE_UNITS.length - 1) {
    value /= 1000;
    unit++;
  }
  if (unit === 0) return `${bytes} B`;
  return `${threeDigits(value)} ${BYTE_UNITS[unit]}`;
}

/** A count with K/M/B from ten thousand up, to three significant digits: 904481 → "904 K", 369 → "369". */
export function formatCount(n: number): string {
  const abs = Math.abs(n);
  if (abs < 10_000) return exact(n);
  const [div, suffix] = abs >= 1e9 ? [1e9, 'B'] : abs >= 1e6 ? [1e6, 'M'] : [1e3, 'K'];
  return `${threeDigits(n / div)} ${suffix}`;
}

/** 1.27, 26.5, 252: three significant digits for values from 1 to 999. */
function threeDigits(v: number): string {
  const abs = Math.abs(v);
  return abs >= 100 ? v.toFixed(0) : abs >= 10 ? v.toFixed(1) : v.toFixed(2);
}

/**
 * The exact integer with thousands separators: 1234567 → "1,234,567". Not toLocaleString: a page's first call
 * to it sets up ICU's number formatting, measured at 45–90 ms on 2 cores, in the middle of the first model's
 * summary and graph.
 */
export function exact(n: number): string {
  if (!Number.isSafeInteger(n)) return n.toLocaleString('en-US');
  const digits = String(Math.abs(n));
  let out = digits.slice(0, digits.length % 3 || 3);
  for (let i = out.length; i < digits.length; i += 3) out += `,${digits.slice(i, i + 3)}`;
  return n < 0 ? `-${out}` : out;
}

/** "1 node", "2 nodes". */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${exact(n)} ${n === 1 ? one : many}`;
}
