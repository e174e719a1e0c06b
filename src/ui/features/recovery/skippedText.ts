/**
 * The summary line of the rungs a climb did not try: why, in a few words, from their reasons. A rung skipped because
 * measurement said it could not win (CLE with nothing to equalize, fine-tuning out of reach) and one that did not fit in
 * what was left of the time budget are said apart; the line said "could not win or fit in the time budget" to a climb
 * that had no budget.
 */

/** "3 rungs not tried: measurement said they could not win", "…: 1 could not win; 2 could not fit in the time budget". */
export function skippedText(skipped: readonly { reason: string }[]): string {
  const n = skipped.length;
  const over = skipped.filter((k) => k.reason.startsWith('over the time budget')).length;
  const lost = n - over;
  const who = (k: number) => (k === n ? (n === 1 ? 'it' : 'they') : String(k));
  const win = lost === 0 ? '' : `measurement said ${who(lost)} could not win`;
  const fit = over === 0 ? '' : `${who(over)} could not fit in the time budget`;
  return `${n} rung${n === 1 ? '' : 's'} not tried: ${[win, fit].filter(Boolean).join('; ')}`;
}
