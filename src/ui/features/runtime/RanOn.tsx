/**
 * "Fine-tuning ran on WebAssembly, 4 threads: why": the line each step (calibration, evaluation, fine-tuning)
 * shows beside its result, so the page always says which runtime ran it (issue 34). Nothing before it ran.
 */
import type { BackendInfo } from '../../../core/runtime/session.ts';
import { backendText, whyText } from './backendText.ts';

export function RanOn({
  step,
  backend,
  workers,
  testId,
}: {
  step: string;
  backend: BackendInfo | null;
  workers?: number;
  testId: string;
}) {
  if (!backend) return null;
  const why = whyText(backend);
  return (
    <p className="muted small ran-on" data-testid={testId} data-backend={backend.kind}>
      {step} ran on <strong>{backendText(backend, workers)}</strong>
      {why ? `: ${why}` : ''}.
    </p>
  );
}
