/**
 * Calibration data: a drop target of its own (files dropped here are data, never a model: the drop
 * stops here and the page-wide model drop does not see it), buttons for files and for a whole folder,
 * the count, a strip of the first images, the .npy samples, and the files that were not taken.
 */
import { useRef } from 'react';
import { useStudio } from '../../store/index.ts';
import { plural } from '../../components/format.ts';
import { addDataFiles } from './actions.ts';
import { Thumbnails } from '../../components/Thumbnails.tsx';
import { CarriedDataNotice } from './CarriedDataNotice.tsx';
import { StepCard } from '../../components/StepCard.tsx';
import { RejectedFiles } from '../../components/RejectedFiles.tsx';
import { FilePickers } from '../../components/FilePickers.tsx';
import { useDataDrop } from '../../components/useDataDrop.ts';
import { onEnterOrSpace } from '../../components/activationKeys.ts';
import { TitleCount } from '../../components/TitleCount.tsx';

export function DataCard() {
  const images = useStudio((s) => s.calibration.images);
  const npy = useStudio((s) => s.calibration.npy);
  const rejected = useStudio((s) => s.calibration.rejected);
  const inputs = useStudio((s) => s.model.summary?.inputs);
  const clear = useStudio((s) => s.clearCalibrationData);
  const running = useStudio((s) => s.calibration.status === 'running');
  const previewIndex = useStudio((s) => s.calibration.previewIndex);
  const setPreviewImage = useStudio((s) => s.setPreviewImage);
  const filesInput = useRef<HTMLInputElement>(null);
  const folderInput = useRef<HTMLInputElement>(null);

  // Drag events stop here: the window's model drop (and its overlay) must not count them.
  const drop = useDataDrop((data) => void addDataFiles(data.files));

  const count = images.length + npy.length;
  const multiInput = (inputs?.length ?? 0) > 1;

  return (
    <StepCard
      titleId="data-title"
      step={1}
      data-testid="calibration-data"
      title={
        <>
          Calibration data
          {count > 0 && <TitleCount count={count} testId="calibration-count" />}
        </>
      }
    >
      <CarriedDataNotice />
      <FilePickers
        filesRef={filesInput}
        folderRef={folderInput}
        accept="image/*,.npy"
        onPick={(files) => void addDataFiles(files)}
        testIds={{ files: 'calibration-file-input', folder: 'calibration-folder-input' }}
      />
      <div
        className={`data-drop${drop.over ? ' data-drop--active' : ''}`}
        data-testid="calibration-drop"
        role="button"
        tabIndex={0}
        aria-label="Add calibration images or .npy files"
        aria-describedby="data-drop-hint"
        onClick={() => filesInput.current?.click()}
        onKeyDown={onEnterOrSpace(() => filesInput.current?.click())}
        {...drop.handlers}
      >
        {count === 0 ? (
          <>
            <span className="data-drop__title">Drop calibration images here</span>
            <span id="data-drop-hint" className="data-drop__hint">
              A few dozen photos like those the model will see (PNG, JPEG, WebP)
              {multiInput ? ', or .npy tensors, one file per input and sample' : ', or .npy tensors'}.
            </span>
          </>
        ) : (
          <>
            <span className="data-drop__title" data-testid="calibration-summary">
              {images.length > 0 && plural(images.length, 'image')}
              {images.length > 0 && npy.length > 0 && ' · '}
              {npy.length > 0 && plural(npy.length, '.npy sample')}
            </span>
            <span id="data-drop-hint" className="data-drop__hint">
              Drop more here to add them.
            </span>
          </>
        )}
      </div>
      <div className="step__actions">
        <button type="button" className="button button--small" onClick={() => filesInput.current?.click()}>
          Add files…
        </button>
        <button type="button" className="button button--small" onClick={() => folderInput.current?.click()}>
          Add a folder…
        </button>
        {count > 0 && (
          <button
            type="button"
            className="button button--small button--quiet"
            onClick={clear}
            disabled={running}
            data-testid="calibration-clear"
          >
            Clear
          </button>
        )}
      </div>
      {images.length > 0 && (
        <Thumbnails
          files={images}
          selected={previewIndex}
          onSelect={setPreviewImage}
          testId="calibration-thumbnails"
          label="calibration images"
        />
      )}
      {npy.length > 0 && (
        <ul className="npy-list" data-testid="npy-samples" aria-label=".npy samples">
          {npy.slice(0, 8).map((s) => (
            <li key={s.name} className="pill">
              {s.name}
            </li>
          ))}
          {npy.length > 8 && <li className="pill pill__sub">+{npy.length - 8} more</li>}
        </ul>
      )}
      <RejectedFiles rejected={rejected} testId="calibration-rejected" />
    </StepCard>
  );
}
