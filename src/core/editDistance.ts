/**
 * Levenshtein distance, the one implementation: the fewest single-element insertions, deletions and
 * substitutions that turn one sequence into another. Serves "did you mean" suggestions over names
 * (strings) and the character error rate of decoded text (label arrays) alike.
 */

/** Edit distance between `a` and `b` (strings or arrays, elements compared with ===). */
export function editDistance<T>(a: ArrayLike<T>, b: ArrayLike<T>): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = row;
  }
  return prev[b.length];
}
