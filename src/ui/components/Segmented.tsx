/**
 * One choice of a few as joined buttons (a radio group): the chosen one filled, each with its hint as a title. Arrow
 * keys move the choice, and the focus with it; only the chosen one is in the Tab order, as in any radio group.
 * Labelled by a label of its own (label) or by an element on the page (labelledBy).
 */
import type { KeyboardEvent } from 'react';

export interface SegmentedChoice<T extends string> {
  value: T;
  label: string;
  hint: string;
}

export interface SegmentedProps<T extends string> {
  choices: readonly SegmentedChoice<T>[];
  value: T;
  onChange: (value: T) => void;
  label?: string;
  labelledBy?: string;
  disabled?: boolean;
  /** Each button's test id is this prefix and its value. */
  testIdPrefix: string;
}

export function Segmented<T extends string>({
  choices,
  value,
  onChange,
  label,
  labelledBy,
  disabled,
  testIdPrefix,
}: SegmentedProps<T>) {
  const onKey = (e: KeyboardEvent) => {
    const step =
      e.key === 'ArrowRight' || e.key === 'ArrowDown' ? 1 : e.key === 'ArrowLeft' || e.key === 'ArrowUp' ? -1 : 0;
    if (!step) return;
    e.preventDefault();
    const next = (choices.findIndex((c) => c.value === value) + step + choices.length) % choices.length;
    onChange(choices[next].value);
    e.currentTarget.querySelectorAll('button')[next]?.focus(); // the focus follows the choice
  };
  return (
    <span className="segmented" role="radiogroup" aria-label={label} aria-labelledby={labelledBy} onKeyDown={onKey}>
      {choices.map((c) => (
        <button
          key={c.value}
          type="button"
          role="radio"
          aria-checked={value === c.value}
          title={c.hint}
          disabled={disabled}
          tabIndex={value === c.value ? 0 : -1}
          className={value === c.value ? 'segmented__item segmented__item--on' : 'segmented__item'}
          onClick={() => onChange(c.value)}
          data-testid={`${testIdPrefix}${c.value}`}
        >
          {c.label}
        </button>
      ))}
    </span>
  );
}
