/**
 * A checkbox in its label: the box, then what it switches (children), and a hint under it where one is given
 * (the settings' check style). onChange gets the new state.
 */
import type { ReactNode } from 'react';

export interface CheckboxProps {
  /** The label's class: the look of the card it stands in (the settings' "check" unless given). */
  className?: string;
  checked: boolean;
  onChange: (checked: boolean) => void;
  testId: string;
  disabled?: boolean;
  title?: string;
  /** A line under the label; with it the label and hint are wrapped in one span. */
  hint?: ReactNode;
  children: ReactNode;
}

export function Checkbox({
  className = 'check',
  checked,
  onChange,
  testId,
  disabled,
  title,
  hint,
  children,
}: CheckboxProps) {
  return (
    <label className={className} title={title}>
      <input
        type="checkbox"
        checked={checked}
        disabled={disabled}
        data-testid={testId}
        onChange={(e) => onChange(e.currentTarget.checked)}
      />
      {hint === undefined ? (
        children
      ) : (
        <span>
          {children}
          <span className="check__hint">{hint}</span>
        </span>
      )}
    </label>
  );
}
