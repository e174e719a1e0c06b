/**
 * The runtime switch (issue 34): Auto (WebGPU only where it finishes the job sooner on this model, its session and
 * shader compilation weighed against the images the job has; never a software adapter), WebGPU (forced, where the browser has an adapter) or WASM. Calibration's workers run on it;
 * evaluation and fine-tuning always run on WASM (the reference for quantized numerics), which the page says
 * beside their results. Arrow keys move along the choices, as in any radio group.
 */
import type { KeyboardEvent } from 'react';
import type { BackendPreference } from '../../../core/runtime/session.ts';
import { useStudio } from '../../store/index.ts';

const CHOICES: { value: BackendPreference; label: string; hint: string }[] = [
  {
    value: 'auto',
    label: 'Auto',
    hint: 'WebGPU where it finishes the job sooner on this model, its start-up (session, shader compilation) weighed against the images to run; never a software adapter. WASM otherwise',
  },
  { value: 'webgpu', label: 'WebGPU', hint: 'WebGPU whenever the browser has an adapter, even a slow software one' },
  { value: 'wasm', label: 'WASM', hint: 'onnxruntime on the CPU (WebAssembly) only' },
];

export function RuntimeSwitch({ disabled }: { disabled?: boolean }) {
  const runtime = useStudio((s) => s.calibration.runtime);
  const setRuntime = useStudio((s) => s.setRuntime);
  const onKey = (e: KeyboardEvent) => {
    const step =
      e.key === 'ArrowRight' || e.key === 'ArrowDown' ? 1 : e.key === 'ArrowLeft' || e.key === 'ArrowUp' ? -1 : 0;
    if (!step) return;
    e.preventDefault();
    const i = CHOICES.findIndex((c) => c.value === runtime);
    setRuntime(CHOICES[(i + step + CHOICES.length) % CHOICES.length].value);
  };
  return (
    <span className="runtime-switch" data-testid="runtime-switch">
      <span className="muted small" id="runtime-switch-label">
        Runtime
      </span>
      <span className="segmented" role="radiogroup" aria-labelledby="runtime-switch-label" onKeyDown={onKey}>
        {CHOICES.map((c) => (
          <button
            key={c.value}
            type="button"
            role="radio"
            aria-checked={runtime === c.value}
            title={c.hint}
            disabled={disabled}
            tabIndex={runtime === c.value ? 0 : -1}
            className={runtime === c.value ? 'segmented__item segmented__item--on' : 'segmented__item'}
            onClick={() => setRuntime(c.value)}
            data-testid={`runtime-${c.value}`}
          >
            {c.label}
          </button>
        ))}
      </span>
    </span>
  );
}
