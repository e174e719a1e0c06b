/**
 * The open model at a glance: its file, the notes later steps depend on (as warnings), the vital
 * facts, inputs and outputs, and the op-type histogram. Read-only; opening another model or closing
 * this one are the only actions here.
 */
import type { ModelSummary } from '../../../core/onnx/index.ts';
import { Callout } from '../../components/Callout.tsx';
import { formatBytes } from '../../components/format.ts';
import { ModelFacts } from './ModelFacts.tsx';
import { OpHistogram } from './OpHistogram.tsx';
import { TensorTable } from './TensorTable.tsx';

export interface ModelSummaryViewProps {
  summary: ModelSummary;
  onOpenAnother: () => void;
  onClose: () => void;
}

export function ModelSummaryView({ summary, onOpenAnother, onClose }: ModelSummaryViewProps) {
  return (
    <article className="summary" data-testid="model-summary" aria-labelledby="summary-title">
      <header className="summary__header">
        <div>
          <h2 id="summary-title" className="summary__title file-name" data-testid="summary-file-name">
            {summary.fileName}
          </h2>
          <div className="summary__meta">
            {formatBytes(summary.byteLength)} · ONNX IR {summary.irVersion}
          </div>
        </div>
        <div className="summary__actions">
          <button type="button" className="button" onClick={onOpenAnother}>
            Open another model…
          </button>
          <button type="button" className="button button--quiet" onClick={onClose}>
            Close
          </button>
        </div>
      </header>

      {summary.notes.length > 0 && (
        <div className="summary__notes" data-testid="summary-notes">
          {summary.notes.map((note) => (
            <Callout key={note} kind="warning" testId="summary-note">
              {note}
            </Callout>
          ))}
        </div>
      )}

      <div className="summary__grid">
        <div className="summary__column">
          <ModelFacts summary={summary} />
          <TensorTable title="Inputs" tensors={summary.inputs} testId="summary-inputs" rowTestId="summary-input" />
          <TensorTable title="Outputs" tensors={summary.outputs} testId="summary-outputs" rowTestId="summary-output" />
        </div>
        <div className="summary__column">
          <OpHistogram ops={summary.ops} />
        </div>
      </div>
    </article>
  );
}
