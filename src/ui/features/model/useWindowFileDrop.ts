/**
 * Drag-and-drop of files onto the whole window, not one target: dragover is accepted (preventDefault)
 * everywhere so the browser never navigates to a dropped file, and `dragging` drives the overlay.
 *
 * dragenter/dragleave fire for every child element crossed, so a depth counter tells when the drag
 * really left the window. Drags that carry no files (selected text, links) are left alone, and so are drops an
 * element below took for itself (it called preventDefault): the overlay goes, no model opens.
 */
import { useEffect, useState } from 'react';

import { carriesFiles } from '../../components/useDataDrop.ts';

/** Calls onDrop with the dropped files; returns whether files are being dragged over the page. */
export function useWindowFileDrop(onDrop: (files: File[]) => void): boolean {
  const [dragging, setDragging] = useState(false);

  useEffect(() => {
    let depth = 0;
    const enter = (e: DragEvent) => {
      if (!carriesFiles(e)) return;
      e.preventDefault();
      depth++;
      setDragging(true);
    };
    const over = (e: DragEvent) => {
      if (!carriesFiles(e)) return;
      e.preventDefault();
      if (e.dataTransfer) e.dataTransfer.dropEffect = 'copy';
    };
    const leave = (e: DragEvent) => {
      if (!carriesFiles(e)) return;
      depth = Math.max(0, depth - 1);
      if (depth === 0) setDragging(false);
    };
    const drop = (e: DragEvent) => {
      if (!carriesFiles(e)) return;
      // A drop target that takes the files itself (the graph step's "compare two models") cancels the drop.
      const taken = e.defaultPrevented;
      e.preventDefault();
      depth = 0;
      setDragging(false);
      if (!taken) onDrop(Array.from(e.dataTransfer?.files ?? []));
    };
    window.addEventListener('dragenter', enter);
    window.addEventListener('dragover', over);
    window.addEventListener('dragleave', leave);
    window.addEventListener('drop', drop);
    return () => {
      window.removeEventListener('dragenter', enter);
      window.removeEventListener('dragover', over);
      window.removeEventListener('dragleave', leave);
      window.removeEventListener('drop', drop);
    };
  }, [onDrop]);

  return dragging;
}
