/**
 * The labels drop on the evaluation screen: one file, several, or a whole folder (dropped, or chosen with
 * "Choose files…" / "Choose a folder…"), sent as they are to the worker, where the CLI's own reader
 * (core/task/labelSource.ts) decides what they are: COCO JSON or YOLO txt for boxes, a CSV or a folder per class,
 * PNG masks, a recognizer's lines file with its dictionary. Keyboard: the zone is a button (Enter or Space
 * chooses files). Labels cleared because another model opened say so here.
 */
import { useRef } from 'react';
import { useStudio } from '../../store/index.ts';
import { plural } from '../../components/format.ts';
import { chosenFiles, droppedFiles, type PathedFile } from '../../components/droppedFiles.ts';
import type { TaskHead } from '../../../core/task/index.ts';
import { FilePickers } from '../../components/FilePickers.tsx';
import { useDataDrop } from '../../components/useDataDrop.ts';
import { onEnterOrSpace } from '../../components/activationKeys.ts';

/** What labels the head takes, in the words of its files. */
const KINDS: Record<TaskHead['task'], string> = {
  detect: 'a COCO .json, or YOLO .txt files (one per image: class cx cy w h)',
  classify: 'an image,class .csv, or a folder per class holding its images',
  segment: 'PNG masks named as their images (class per pixel, 255 ignored)',
  text: "a lines file (image⇥text) with the recognizer's dictionary (its keys .txt)",
};

/** A name for what was given: the file, the folder, or a count. */
function givenName(files: readonly PathedFile[]): string {
  if (files.length === 1) return files[0].path;
  const tops = new Set(files.map((f) => (f.path.includes('/') ? f.path.split('/')[0] : null)));
  const [top] = tops;
  return tops.size === 1 && top ? `${top}/ (${plural(files.length, 'file')})` : plural(files.length, 'file');
}

export function LabelsDrop({ head, disabled }: { head: TaskHead; disabled: boolean }) {
  const labels = useStudio((s) => s.evaluation.labels);
  const cleared = useStudio((s) => s.evaluation.labelsCleared);
  const setLabels = useStudio((s) => s.setEvaluationLabels);
  const filesInput = useRef<HTMLInputElement>(null);
  const folderInput = useRef<HTMLInputElement>(null);

  const give = (files: PathedFile[]) => {
    if (files.length) setLabels({ name: givenName(files), files });
  };
  const drop = useDataDrop((data) => void droppedFiles(data).then(give), disabled);
  const choose = () => !disabled && filesInput.current?.click();

  return (
    <div className="labels-drop" data-testid="task-labels">
      <FilePickers
        filesRef={filesInput}
        folderRef={folderInput}
        onPick={(files) => give(chosenFiles(files))}
        testIds={{ files: 'task-labels-input', folder: 'task-labels-folder-input' }}
      />
      <div
        className={`data-drop data-drop--compact labels-drop__zone${drop.over ? ' data-drop--active' : ''}`}
        data-testid="task-labels-drop"
        role="button"
        tabIndex={disabled ? -1 : 0}
        aria-disabled={disabled}
        aria-label="Add labels for the evaluation images"
        aria-describedby="labels-drop-hint"
        onClick={choose}
        onKeyDown={onEnterOrSpace(choose)}
        {...drop.handlers}
      >
        <span className="data-drop__title" data-testid="task-labels-title">
          {labels ? `Labels: ${labels.name}` : 'Drop labels here (optional)'}
        </span>
        <span id="labels-drop-hint" className="data-drop__hint">
          {labels
            ? 'The next evaluation judges the float and quantized models against them. Drop others to replace them.'
            : `To judge both models against the truth, not only against each other: ${KINDS[head.task]}. A file or a whole folder.`}
        </span>
      </div>
      <div className="step__actions">
        <button type="button" className="button button--small" disabled={disabled} onClick={choose}>
          Choose files…
        </button>
        <button
          type="button"
          className="button button--small"
          disabled={disabled}
          onClick={() => folderInput.current?.click()}
        >
          Choose a folder…
        </button>
        {labels && (
          <button
            type="button"
            className="button button--small button--quiet"
            disabled={disabled}
            data-testid="task-labels-remove"
            onClick={() => setLabels(null)}
          >
            Remove the labels
          </button>
        )}
      </div>
      {!labels && cleared && (
        <p className="small muted" role="status" data-testid="task-labels-cleared">
          The labels {cleared} were cleared: they named the images of the model opened before.
        </p>
      )}
    </div>
  );
}
