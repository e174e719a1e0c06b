/**
 * Every field of a preprocessing spec as a form control. Each change is checked by the core's
 * `validatePreprocess` before it reaches the store; a value it refuses stays in its box with the
 * core's message under it, so typing "1/" on the way to "1/255" never breaks the page.
 * Numbers accept fractions ("1/255"); per-channel lists are comma-separated.
 */
import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { validatePreprocess, type PreprocessSpec } from '../../../core/preprocess/spec.ts';
import { SelectField } from '../../components/SelectField.tsx';

type Change = (spec: PreprocessSpec) => void;

/** A number typed in a field, or an error saying what was typed. */
function numberIn(text: string): number {
  const v = parseNumber(text);
  if (Number.isNaN(v))
    throw new Error(
      text.trim() === '' ? 'Give a number.' : `"${text.trim()}" is not a number (write 0.5, 1e-3 or 1/255).`,
    );
  return v;
}

/** "1/255" → 0.00392…, "0.5" → 0.5; NaN for anything else. */
export function parseNumber(text: string): number {
  const t = text.trim();
  const frac = /^([-+]?[\d.]+(?:e[-+]?\d+)?)\s*\/\s*([-+]?[\d.]+(?:e[-+]?\d+)?)$/i.exec(t);
  if (frac) return Number(frac[1]) / Number(frac[2]);
  return t === '' ? NaN : Number(t);
}

/** 0.00392156… → "1/255"; other numbers as short decimals. */
export function formatNumber(v: number): string {
  for (const d of [255, 256, 127.5, 128])
    if (v !== 0 && Math.abs(v * d - Math.round(v * d)) < 1e-9 && Math.abs(v) < 1) return `${Math.round(v * d)}/${d}`;
  return String(Number(v.toPrecision(6)));
}

const formatList = (values: readonly number[]) => values.map(formatNumber).join(', ');

function Field({
  label,
  hint,
  error,
  children,
  htmlFor,
}: {
  label: string;
  hint?: ReactNode;
  error?: string | null;
  children: ReactNode;
  htmlFor: string;
}) {
  return (
    <div className={`field${error ? ' field--invalid' : ''}`}>
      <label className="field__label" htmlFor={htmlFor}>
        {label}
      </label>
      {children}
      {error ? (
        <div className="field__error" role="alert">
          {error}
        </div>
      ) : (
        hint && <div className="field__hint">{hint}</div>
      )}
    </div>
  );
}

/** A text box whose draft is checked on every keystroke and committed when it makes a valid spec. */
function TextField({
  label,
  hint,
  value,
  toSpec,
  onChange,
  testId,
  inputMode = 'decimal',
  disabled,
}: {
  label: string;
  disabled?: boolean;
  hint?: ReactNode;
  value: string;
  toSpec: (text: string) => unknown;
  onChange: Change;
  testId: string;
  inputMode?: 'decimal' | 'text' | 'numeric';
}) {
  const id = useId();
  const [draft, setDraft] = useState(value);
  const [error, setError] = useState<string | null>(null);
  // While the user types, the draft is theirs ("1." on the way to "1.5" must not become "1");
  // a change from elsewhere (a preset, an import) shows when the box is not being edited.
  const focused = useRef(false);
  useEffect(() => {
    if (focused.current) return;
    setDraft(value);
    setError(null);
  }, [value]);
  return (
    <Field label={label} hint={hint} error={error} htmlFor={id}>
      <input
        id={id}
        className="input"
        inputMode={inputMode}
        value={draft}
        disabled={disabled}
        data-testid={testId}
        aria-invalid={error ? true : undefined}
        onFocus={() => (focused.current = true)}
        onBlur={() => {
          focused.current = false;
          if (!error) setDraft(value);
        }}
        onChange={(e) => {
          const text = e.currentTarget.value;
          setDraft(text);
          try {
            onChange(validatePreprocess(toSpec(text)));
            setError(null);
          } catch (err) {
            setError(err instanceof Error ? err.message : String(err));
          }
        }}
      />
    </Field>
  );
}

function Choice<T extends string>({
  label,
  value,
  options,
  onPick,
  testId,
  disabled,
  hint,
}: {
  label: string;
  value: T;
  options: readonly (readonly [T, string])[];
  onPick: (v: T) => void;
  testId: string;
  disabled?: boolean;
  hint?: ReactNode;
}) {
  return (
    <SelectField
      label={label}
      value={value}
      disabled={disabled}
      testId={testId}
      hint={hint}
      onChange={(v) => onPick(v as T)}
    >
      {options.map(([v, text]) => (
        <option key={v} value={v}>
          {text}
        </option>
      ))}
    </SelectField>
  );
}

const listOf = (text: string) =>
  text
    .split(/[,\s]+/)
    .filter(Boolean)
    .map(numberIn);

export function SpecFields({
  spec,
  onChange,
  channels,
  dimNames,
}: {
  spec: PreprocessSpec;
  onChange: Change;
  channels: number | null;
  dimNames: readonly string[];
}) {
  const set = <K extends keyof PreprocessSpec>(key: K, v: PreprocessSpec[K]) =>
    onChange(validatePreprocess({ ...spec, [key]: v }));
  const letterbox = spec.resize === 'letterbox';
  return (
    <div className="spec-fields" data-testid="preprocess-fields">
      <Choice
        label="Resize"
        value={spec.resize}
        testId="spec-resize"
        onPick={(v) => set('resize', v)}
        options={[
          ['stretch', 'Stretch to the input size'],
          ['crop', 'Resize and center-crop'],
          ['letterbox', 'Letterbox (fit and pad)'],
        ]}
      />
      <Choice
        label="Letterbox position"
        value={spec.letterboxAlign}
        testId="spec-letterbox-align"
        disabled={!letterbox}
        onPick={(v) => set('letterboxAlign', v)}
        options={[
          ['center', 'Centered'],
          ['topLeft', 'Top-left (YOLOX)'],
        ]}
      />
      <TextField
        label="Pad value"
        hint="0–255, before normalisation"
        value={String(spec.padValue)}
        testId="spec-pad"
        inputMode="numeric"
        toSpec={(t) => ({ ...spec, padValue: numberIn(t) })}
        disabled={!letterbox}
        onChange={onChange}
      />
      {channels === 1 ? (
        <Choice
          label="One channel gets"
          value={spec.colorSpace}
          testId="spec-color-space"
          onPick={(v) => set('colorSpace', v)}
          options={[
            ['gray', 'Gray (luma)'],
            ['Y', 'Y of YCbCr'],
          ]}
        />
      ) : (
        <Choice
          label="Channel order"
          value={spec.channelOrder}
          testId="spec-channel-order"
          onPick={(v) => set('channelOrder', v)}
          options={[
            ['RGB', 'RGB'],
            ['BGR', 'BGR (OpenCV)'],
          ]}
        />
      )}
      <TextField
        label="Scale"
        hint="multiplies 0–255 values first, e.g. 1/255"
        value={formatNumber(spec.scale)}
        testId="spec-scale"
        toSpec={(t) => ({ ...spec, scale: numberIn(t) })}
        onChange={onChange}
      />
      <TextField
        label="Mean"
        hint="subtracted after scaling; one value or one per channel"
        value={formatList(spec.mean)}
        testId="spec-mean"
        inputMode="text"
        toSpec={(t) => ({ ...spec, mean: listOf(t) })}
        onChange={onChange}
      />
      <TextField
        label="Std"
        hint="divides after the mean; one value or one per channel"
        value={formatList(spec.std)}
        testId="spec-std"
        inputMode="text"
        toSpec={(t) => ({ ...spec, std: listOf(t) })}
        onChange={onChange}
      />
      <Choice
        label="Layout"
        value={spec.layout}
        testId="spec-layout"
        onPick={(v) => set('layout', v)}
        options={[
          ['NCHW', 'NCHW (channels first)'],
          ['NHWC', 'NHWC (channels last)'],
        ]}
      />
      <Choice
        label="Element type"
        value={spec.elementType}
        testId="spec-element-type"
        onPick={(v) =>
          onChange(
            validatePreprocess(
              v === 'uint8' ? { ...spec, elementType: v, scale: 1, mean: [0], std: [1] } : { ...spec, elementType: v },
            ),
          )
        }
        options={[
          ['float32', 'float32'],
          ['uint8', 'uint8 (raw bytes)'],
        ]}
      />
      {dimNames.map((name) => (
        <TextField
          key={name}
          label={`Dimension "${name}"`}
          hint="the model leaves it open: give its value"
          value={spec.dims[name] === undefined ? '' : String(spec.dims[name])}
          testId={`spec-dim-${name}`}
          inputMode="numeric"
          toSpec={(t) => {
            const dims = { ...spec.dims };
            if (t.trim() === '') delete dims[name];
            else dims[name] = numberIn(t);
            return { ...spec, dims };
          }}
          onChange={onChange}
        />
      ))}
    </div>
  );
}
