/**
 * A number beside its label, inline: the label, a narrow input, then what follows it (a unit). Every number field of
 * the page reads its text by one rule: the field keeps what the user typed, passes on only a value its range allows
 * (`min`, `max`, `above`, `integer`, empty where `optional`), and says beside itself what is wrong with any other text
 * and which value stays meanwhile. A controlled number input put the last good value back over a 0 or a 1.5 without a
 * word, and a run then went with a value the field no longer showed being typed.
 *
 * It is a text input (inputMode decimal) so that the browser keeps any text as typed; ArrowUp and ArrowDown still
 * step by `step` within the range.
 */
import { useEffect, useState, type ReactNode } from 'react';

export interface NumberFieldProps {
  label: ReactNode;
  /** The value the page holds; null: empty (only where `optional`). */
  value: number | null;
  /** A value the range allows (null: emptied, where `optional`); other text stays in the field, its problem said. */
  onChange: (value: number | null) => void;
  testId: string;
  min?: number;
  max?: number;
  /** `min` itself is not allowed ("above zero"). */
  above?: boolean;
  integer?: boolean;
  /** What ArrowUp and ArrowDown add or take (default 1). */
  step?: number;
  /** Empty is allowed and means this ("none", "every layer"): the placeholder, and the problem's way out. */
  optional?: string;
  /** The empty field's text, where not `optional`'s. */
  placeholder?: string;
  /** What the text is not when wrong ("a budget"); default: "a number", or "in range" for a number outside it. */
  noun?: string;
  /** What the number is, for the problem's "give …" (default "a number", or "a whole number"). */
  what?: string;
  /** After the rule in the problem: an example ("0.5 is 30 s"). */
  hint?: string;
  /** What stays in force while the text is wrong (default "it stays <value>"). */
  keeps?: (value: number | null) => string;
  disabled?: boolean;
  /** The label's tooltip. */
  title?: string;
  /** After the input: a unit. */
  children?: ReactNode;
}

/** What a field's rule says of its text: a value (null: empty) or, when it is not one, undefined. */
export function readNumberText(
  text: string,
  rule: Pick<NumberFieldProps, 'min' | 'max' | 'above' | 'integer' | 'optional'>,
): number | null | undefined {
  const t = text.trim();
  if (t === '') return rule.optional !== undefined ? null : undefined;
  const v = Number(t);
  if (!Number.isFinite(v) || (rule.integer && !Number.isInteger(v))) return undefined;
  if (rule.min !== undefined && (rule.above ? !(v > rule.min) : !(v >= rule.min))) return undefined;
  if (rule.max !== undefined && !(v <= rule.max)) return undefined;
  return v;
}

/** The rule in words: "a whole number of at least 1", "a number from 0 to 1", "minutes above zero (0.5 is 30 s)". */
export function numberRuleText(
  rule: Pick<NumberFieldProps, 'min' | 'max' | 'above' | 'integer' | 'optional' | 'what' | 'hint'>,
): string {
  const what = rule.what ?? (rule.integer ? 'a whole number' : 'a number');
  const { min, max } = rule;
  const range =
    min !== undefined && max !== undefined
      ? ` from ${min}${rule.above ? ' (excluded)' : ''} to ${max}`
      : min !== undefined
        ? rule.above
          ? ` above ${min === 0 ? 'zero' : min}`
          : ` of at least ${min}`
        : max !== undefined
          ? ` of at most ${max}`
          : '';
  return `${what}${range}${rule.hint ? ` (${rule.hint})` : ''}${rule.optional !== undefined ? `, or leave it empty for ${rule.optional}` : ''}`;
}

/** "is not a budget", or without a noun "is not a number" / "is out of range" (a number outside the rule's range). */
const problemNoun = (text: string, noun: string | undefined) =>
  noun ? `is not ${noun}` : text.trim() !== '' && Number.isFinite(Number(text)) ? 'is out of range' : 'is not a number';

const shown = (value: number | null) => (value === null ? '' : String(value));
/** The same number, allowing for a value the page scaled (a percent of a share: 7.000000000000001 is "7"). */
const same = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));

export function NumberField({
  label,
  value,
  onChange,
  testId,
  title,
  children,
  disabled,
  step = 1,
  keeps,
  placeholder,
  ...rule
}: NumberFieldProps) {
  const [text, setText] = useState(shown(value));
  // A value set elsewhere (a restored session, another control) shows; the user's own text for the same value stays.
  useEffect(() => {
    setText((t) => {
      const read = readNumberText(t, rule);
      if (value === null) return read === null ? t : '';
      return typeof read === 'number' && same(read, value) ? t : shown(value);
    });
    // eslint-disable-next-line react-hooks/exhaustive-deps -- only the held value resets the text
  }, [value]);
  const read = readNumberText(text, rule);
  const problem =
    read !== undefined
      ? null
      : `"${text.trim()}" ${problemNoun(text, rule.noun)}: give ${numberRuleText(rule)}. Until then ${keeps ? keeps(value) : `it stays ${value === null ? (rule.optional ?? 'empty') : value}`}.`;
  const take = (typed: string) => {
    setText(typed);
    const v = readNumberText(typed, rule);
    if (v !== undefined) onChange(v);
  };
  return (
    <label className="field field--inline" title={title}>
      <span className="field__label">{label}</span>
      <input
        type="text"
        inputMode="decimal"
        className="input input--narrow"
        placeholder={placeholder ?? rule.optional}
        value={text}
        disabled={disabled}
        aria-invalid={problem !== null || undefined}
        data-testid={testId}
        onChange={(e) => take(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key !== 'ArrowUp' && e.key !== 'ArrowDown') return;
          e.preventDefault();
          const from = typeof read === 'number' ? read : (value ?? rule.min ?? 0);
          const decimals = Math.max(0, -Math.floor(Math.log10(step)) + 1);
          let next = Number((from + (e.key === 'ArrowUp' ? step : -step)).toFixed(decimals));
          if (rule.max !== undefined) next = Math.min(rule.max, next);
          if (rule.min !== undefined && next < rule.min) next = rule.above ? from : rule.min;
          take(String(next));
        }}
      />
      {children}
      {problem && (
        <span className="field-problem small" role="alert" data-testid={`${testId}-problem`}>
          {problem}
        </span>
      )}
    </label>
  );
}
