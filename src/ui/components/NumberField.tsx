/**
 * A number beside its label, inline: the label, a narrow number input, then what follows it (a unit). onChange gets
 * the input's text, so each field keeps its own rule for empty and out-of-range text.
 */
import type { ReactNode } from 'react';

export interface NumberFieldProps {
  label: ReactNode;
  value: number | string;
  onChange: (text: string) => void;
  testId: string;
  min?: number;
  max?: number;
  step?: number;
  placeholder?: string;
  disabled?: boolean;
  /** The label's tooltip. */
  title?: string;
  /** After the input: a unit. */
  children?: ReactNode;
}

export function NumberField({ label, onChange, testId, title, children, ...input }: NumberFieldProps) {
  return (
    <label className="field field--inline" title={title}>
      <span className="field__label">{label}</span>
      <input
        type="number"
        className="input input--narrow"
        {...input}
        data-testid={testId}
        onChange={(e) => onChange(e.currentTarget.value)}
      />
      {children}
    </label>
  );
}
