/** The budget's deadline waits for the first rung (there is no model before it), then stops the climb; a Cancel stays one. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { budgetDeadline, type BudgetSignal } from './budgetDeadline.ts';

describe('budgetDeadline', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('does not stop the first rung: a budget shorter than it stops the climb once it ends', () => {
    const signal: BudgetSignal = { aborted: false, budgetSpent: false };
    const spent = vi.fn();
    const deadline = budgetDeadline(signal, 3, spent);
    vi.advanceTimersByTime(3400);
    expect(signal.aborted).toBe(false);
    deadline.rungEnded();
    expect(signal).toEqual({ aborted: true, budgetSpent: true });
    expect(spent).toHaveBeenCalledTimes(1);
  });

  it('stops the rung in flight at the deadline once a rung has ended, and not before the deadline', () => {
    const signal: BudgetSignal = { aborted: false };
    const deadline = budgetDeadline(signal, 60);
    deadline.rungEnded();
    vi.advanceTimersByTime(59_000);
    expect(signal.aborted).toBe(false);
    vi.advanceTimersByTime(1_000);
    expect(signal).toEqual({ aborted: true, budgetSpent: true });
  });

  it('leaves a Cancel a Cancel, and a cleared deadline does nothing', () => {
    const cancelled: BudgetSignal = { aborted: false };
    budgetDeadline(cancelled, 1).rungEnded();
    cancelled.aborted = true;
    vi.advanceTimersByTime(2_000);
    expect(cancelled.budgetSpent).toBeUndefined();
    const cleared: BudgetSignal = { aborted: false };
    const d = budgetDeadline(cleared, 1);
    d.rungEnded();
    d.clear();
    vi.advanceTimersByTime(2_000);
    expect(cleared.aborted).toBe(false);
  });
});
