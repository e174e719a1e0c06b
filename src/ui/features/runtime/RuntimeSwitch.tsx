/**
 * The runtime switch (issue 34): Auto (WebGPU only where it finishes the job sooner on this model, its session and
 * shader compilation weighed against the images the job has; never a software adapter), WebGPU (forced, where the browser has an adapter) or WASM. Calibration's workers run on it;
 * evaluation and fine-tuning always run on WASM (the reference for quantized numerics), which the page says
 * beside their results.
 */
import type { BackendPreference } from '../../../core/runtime/session.ts';
import { useStudio } from '../../store/index.ts';
import { Segmented, type SegmentedChoice } from '../../components/Segmented.tsx';

const CHOICES: readonly SegmentedChoice<BackendPreference>[] = [
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
  return (
    <span className="runtime-switch" data-testid="runtime-switch">
      <span className="muted small" id="runtime-switch-label">
        Runtime
      </span>
      <Segmented
        choices={CHOICES}
        value={runtime}
        onChange={setRuntime}
        labelledBy="runtime-switch-label"
        disabled={disabled}
        testIdPrefix="runtime-"
      />
    </span>
  );
}
