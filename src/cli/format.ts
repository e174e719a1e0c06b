/** Human units for the command line's text output (the page has its own, in its components). */

/** Bytes as B/KB/MB/GB with one decimal (powers of 1024). */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(1)} ${units[unit]}`;
}

/** A count with thousands separators. */
export function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}

/** A shape as `1 × 3 × height × width`, or `?` for unknown rank. */
export function formatShape(shape: (number | string)[] | null): string {
  if (shape === null) return '?';
  if (shape.length === 0) return 'scalar';
  return shape.join(' × ');
}
