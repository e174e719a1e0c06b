/**
 * The empty state: one big target that says what to do (drop a model, choose a file, or try the
 * sample). The whole window accepts drops (useWindowFileDrop); this target is where the eye goes, and
 * it is a keyboard-reachable button of its own: Enter or Space opens the file dialog.
 */
import { SAMPLE_MODEL } from '../../store/modelSources.ts';
import { openSample, quantizeSample } from './actions.ts';
import { onEnterOrSpace } from '../../components/activationKeys.ts';

export function DropZone({ onChoose, dragging }: { onChoose: () => void; dragging: boolean }) {
  return (
    <section className="drop-zone" data-testid="drop-zone" aria-labelledby="drop-zone-title">
      <div
        className={`data-drop drop-zone__target${dragging ? ' data-drop--active' : ''}`}
        role="button"
        tabIndex={0}
        aria-describedby="drop-zone-hint"
        onClick={onChoose}
        onKeyDown={onEnterOrSpace(onChoose)}
      >
        <svg className="drop-zone__icon" viewBox="0 0 48 48" aria-hidden="true">
          <path
            d="M14 6h14l10 10v26a2 2 0 0 1-2 2H14a2 2 0 0 1-2-2V8a2 2 0 0 1 2-2z"
            fill="none"
            stroke="currentColor"
            strokeWidth="2.5"
            strokeLinejoin="round"
          />
          <path d="M28 6v10h10" fill="none" stroke="currentColor" strokeWidth="2.5" strokeLinejoin="round" />
          <path
            d="M25 36V23m-5.5 5.5L25 23l5.5 5.5"
            fill="none"
            stroke="currentColor"
            strokeWidth="2.5"
            strokeLinecap="round"
            strokeLinejoin="round"
          />
        </svg>
        <h2 id="drop-zone-title" className="drop-zone__title">
          Drop an ONNX model here
        </h2>
        <p id="drop-zone-hint" className="drop-zone__hint">
          or anywhere on this page. Models with external data: drop the .onnx together with its data files.
        </p>
      </div>
      <div className="drop-zone__actions">
        <button type="button" className="button" onClick={onChoose}>
          Choose file…
        </button>
        <span className="drop-zone__or">or try the sample ({SAMPLE_MODEL.label}):</span>
        <button
          type="button"
          className="button button--primary"
          data-testid="quantize-sample-button"
          onClick={quantizeSample}
        >
          Quantize the sample
        </button>
        <button type="button" className="button" data-testid="sample-model-button" onClick={openSample}>
          Open it
        </button>
      </div>
      <p className="drop-zone__privacy">The model is read on this computer only: nothing is uploaded.</p>
    </section>
  );
}
