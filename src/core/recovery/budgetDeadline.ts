/**
 * The time budget's deadline of a climb, one for the command line and the page's worker: when the budget is spent the
 * climb's signal is aborted as the budget's (`budgetSpent`), so the rung in flight stops at its next step and the climb
 * ends 'budget'. Except the first rung: until one rung has ended there is no model to keep, so the deadline waits for
 * it (on the page a budget shorter than YOLOX-nano's first rung, 3 s against 3.4 s, ended with no model at all, where
 * the command line, whose screening rung has no step to stop at, wrote that rung). A Cancel that came first stays a
 * Cancel. Holds a timer; no runtime.
 */

/** The signal a climb polls: aborted, and whether the abort is the budget's. */
export interface BudgetSignal {
  aborted: boolean;
  budgetSpent?: boolean;
}

export interface BudgetDeadline {
  /** A rung ended (measured or failed): from now on the deadline stops the climb. */
  rungEnded(): void;
  /** The climb ended: the timer goes. */
  clear(): void;
}

/** Starts the deadline of a `seconds` budget on `signal`; `onSpent` is told when it stops the climb. */
export function budgetDeadline(signal: BudgetSignal, seconds: number, onSpent?: () => void): BudgetDeadline {
  let ended = false;
  let due = false;
  const spend = () => {
    if (signal.aborted) return; // cancelled first: it stays a Cancel
    signal.budgetSpent = true;
    signal.aborted = true;
    onSpent?.();
  };
  const timer = setTimeout(() => {
    due = true;
    if (ended) spend();
  }, seconds * 1000);
  (timer as { unref?: () => void }).unref?.();
  return {
    rungEnded() {
      ended = true;
      if (due) spend();
    },
    clear() {
      clearTimeout(timer);
    },
  };
}
