/**
 * A labelled select, the page's one shape for a choice in a form: `div.field` holding the label, the select and,
 * where given, a hint under it that the select names as its description. The options are the children; onChange
 * gets the picked value as text.
 */
import { useId, type ReactNode } from 'react';

export interface SelectFieldProps {
  label: ReactNode;
  value: string;
  onChange: (value: string) => void;
  testId: string;
  disabled?: boolean;
  /** Under the select, named by its aria-describedby. */
  hint?: ReactNode;
  hintTestId?: string;
  children: ReactNode;
}

export function SelectField({
  label,
  value,
  onChange,
  testId,
  disabled,
  hint,
  hintTestId,
  children,
}: SelectFieldProps) {
  const id = useId();
  const hintId = useId();
  const described = hint !== undefined;
  return (
    <div className="field">
      <label className="field__label" htmlFor={id}>
        {label}
      </label>
      <select
        id={id}
        className="select"
        value={value}
        disabled={disabled}
        aria-describedby={described ? hintId : undefined}
        data-testid={testId}
        onChange={(e) => onChange(e.currentTarget.value)}
      >
        {children}
      </select>
      {described && (
        <div id={hintId} className="field__hint" data-testid={hintTestId}>
          {hint}
        </div>
      )}
    </div>
  );
}
