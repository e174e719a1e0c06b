/**
 * Which samples the evaluation runs on: the calibration data (the default), or an evaluation set the user drops
 * here or picks with "Add files…" (images, or .npy tensors named as the calibration's) — held-out samples judge a
 * quantization more honestly than the ones it was calibrated on. Each file is read as it is added (a corrupt image
 * or a tensor that does not fit an input is named at once), and images show as thumbnails. The drop stops here:
 * files dropped on this zone are data, never a model.
 */
import { useRef, type ReactNode } from 'react';
import { useStudio } from '../../store/index.ts';
import type { EvaluationSource } from '../../store/evaluationSlice.ts';
import { plural } from '../../components/format.ts';
import { Thumbnails } from '../../components/Thumbnails.tsx';
import { readDataFiles } from '../calibration/actions.ts';
import { RejectedFiles } from '../../components/RejectedFiles.tsx';
import { useDataDrop } from '../../components/useDataDrop.ts';
import { onEnterOrSpace } from '../../components/activationKeys.ts';

/** One of the two sources, a radio button with its words. */
function SourceOption({
  value,
  source,
  onPick,
  children,
}: {
  value: EvaluationSource;
  source: EvaluationSource;
  onPick: (source: EvaluationSource) => void;
  children: ReactNode;
}) {
  return (
    <label className="eval-source__option">
      <input
        type="radio"
        name="eval-source"
        checked={source === value}
        onChange={() => onPick(value)}
        data-testid={`eval-source-${value}`}
      />
      {children}
    </label>
  );
}

export function EvaluationDataChoice({ disabled }: { disabled: boolean }) {
  const source = useStudio((s) => s.evaluation.source);
  const images = useStudio((s) => s.evaluation.images);
  const npy = useStudio((s) => s.evaluation.npy);
  const rejected = useStudio((s) => s.evaluation.rejected);
  const calibrationCount = useStudio((s) => s.calibration.images.length + s.calibration.npy.length);
  const setSource = useStudio((s) => s.setEvaluationSource);
  const add = useStudio((s) => s.addEvaluationData);
  const clear = useStudio((s) => s.clearEvaluationData);
  const input = useRef<HTMLInputElement>(null);
  const drop = useDataDrop((data) => void readDataFiles(data.files).then(add));
  const count = images.length + npy.length;
  const what = npy.length > 0 ? 'sample' : 'image';

  return (
    <fieldset className="eval-source" disabled={disabled}>
      <legend className="eval-source__legend">Evaluate on</legend>
      <SourceOption value="calibration" source={source} onPick={setSource}>
        the calibration data <span className="muted">({plural(calibrationCount, 'sample')})</span>
      </SourceOption>
      <SourceOption value="own" source={source} onPick={setSource}>
        a separate evaluation set <span className="muted">({plural(count, what)})</span>
      </SourceOption>
      <input
        ref={input}
        type="file"
        multiple
        accept="image/*,.npy"
        hidden
        data-testid="eval-file-input"
        onChange={(e) => {
          const files = e.currentTarget.files;
          void readDataFiles(files).then(add);
          e.currentTarget.value = '';
        }}
      />
      <div
        className={`data-drop data-drop--compact${drop.over ? ' data-drop--active' : ''}`}
        data-testid="eval-drop"
        role="button"
        tabIndex={0}
        aria-label="Add evaluation images or tensors"
        onClick={() => input.current?.click()}
        onKeyDown={onEnterOrSpace(() => input.current?.click())}
        {...drop.handlers}
      >
        <span className="data-drop__title" data-testid="eval-summary">
          {count > 0 ? plural(count, `evaluation ${what}`) : 'Drop evaluation images here'}
        </span>
        <span className="data-drop__hint">
          Held-out photos like those the model will see, or .npy tensors named as the calibration's; samples not used
          for calibration judge it best.
        </span>
      </div>
      <div className="step__actions">
        <button
          type="button"
          className="button button--small"
          onClick={() => input.current?.click()}
          data-testid="eval-add-files"
        >
          Add files…
        </button>
        {count > 0 && (
          <button type="button" className="button button--small button--quiet" onClick={clear} data-testid="eval-clear">
            Clear evaluation data
          </button>
        )}
      </div>
      {images.length > 0 && <Thumbnails files={images} testId="eval-thumbnails" label="evaluation images" />}
      <RejectedFiles rejected={rejected} testId="eval-rejected" />
    </fieldset>
  );
}
