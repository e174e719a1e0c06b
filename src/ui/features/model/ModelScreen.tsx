/**
 * The model step's screen: the empty state, the file being opened, the error of the last file, and
 * the open model's summary, in that order of what the user needs to see. It also owns the page-wide
 * drop handling, since every drop opens a model (two models dropped together: the first, beside the second).
 */
import { useCallback } from 'react';
import { useStudio } from '../../store/index.ts';
import { DropOverlay } from './DropOverlay.tsx';
import { DropZone } from './DropZone.tsx';
import { LoadingCard } from './LoadingCard.tsx';
import { ModelErrorPanel } from './ModelErrorPanel.tsx';
import { ModelSummaryView } from './ModelSummaryView.tsx';
import { openFiles } from './actions.ts';
import { useFilePicker } from './useFilePicker.tsx';
import { useWindowFileDrop } from './useWindowFileDrop.ts';
import { isComparePair, requestComparison } from '../compare/compareRequests.ts';

export function ModelScreen() {
  const status = useStudio((s) => s.model.status);
  const summary = useStudio((s) => s.model.summary);
  const pending = useStudio((s) => s.model.pending);
  const error = useStudio((s) => s.model.error);
  const dismissError = useStudio((s) => s.dismissModelError);
  const closeModel = useStudio((s) => s.closeModel);
  const { openPicker, pickerInput } = useFilePicker();
  const dragging = useWindowFileDrop(
    useCallback((files: File[]) => {
      // Two models dropped together: the first opens, and both go side by side (the graph step's split view).
      // The split view takes the first from the model worker once it is open there, so it is decoded once: not on the
      // page too, as a small model is for its single pane's first picture, which the split view replaces.
      if (isComparePair(files)) {
        requestComparison(
          files,
          openFiles([files[0]], { onPage: false }).catch(() => undefined),
        );
        return;
      }
      void openFiles(files);
    }, []),
  );

  return (
    <div className="model-screen" data-model-status={status}>
      {pickerInput}
      {dragging && <DropOverlay replacing={summary !== null} />}
      {error && <ModelErrorPanel error={error} keptFileName={summary?.fileName ?? null} onDismiss={dismissError} />}
      {pending && <LoadingCard fileName={pending.fileName} byteLength={pending.byteLength} />}
      {summary ? (
        <ModelSummaryView summary={summary} onOpenAnother={openPicker} onClose={closeModel} />
      ) : (
        !pending && <DropZone onChoose={openPicker} dragging={dragging} />
      )}
    </div>
  );
}
