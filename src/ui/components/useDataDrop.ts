/**
 * A drop target for data inside the page (calibration images, evaluation images, labels). A drag that carries files
 * stops at the target, so the window's model drop (useWindowFileDrop) and its overlay never count it; `over` says
 * whether such a drag is over the target now (dragenter/dragleave fire for every child crossed, hence a depth
 * count). A drop hands its DataTransfer to `take`. A refusing target still stops the drag, shows the 'none' effect
 * and takes nothing.
 */
import { useState, type DragEvent } from 'react';

/** Whether a drag carries files (not selected text or a link). */
export const carriesFiles = (e: { dataTransfer: DataTransfer | null }) =>
  Array.from(e.dataTransfer?.types ?? []).includes('Files');

export interface DataDrop {
  over: boolean;
  handlers: {
    onDragEnter: (e: DragEvent) => void;
    onDragOver: (e: DragEvent) => void;
    onDragLeave: (e: DragEvent) => void;
    onDrop: (e: DragEvent) => void;
  };
}

export function useDataDrop(take: (data: DataTransfer) => void, refuse = false): DataDrop {
  const [depth, setDepth] = useState(0);
  /** Claims a drag that carries files: the browser does not open them and the window does not see them. */
  const claim = (e: DragEvent) => {
    if (!carriesFiles(e)) return false;
    e.preventDefault();
    e.stopPropagation();
    return true;
  };
  return {
    over: depth > 0,
    handlers: {
      onDragEnter: (e) => {
        if (claim(e)) setDepth((n) => n + 1);
      },
      onDragOver: (e) => {
        if (claim(e)) e.dataTransfer.dropEffect = refuse ? 'none' : 'copy';
      },
      onDragLeave: (e) => {
        if (!carriesFiles(e)) return;
        e.stopPropagation();
        setDepth((n) => Math.max(0, n - 1));
      },
      onDrop: (e) => {
        if (!claim(e)) return;
        setDepth(0);
        if (!refuse) take(e.dataTransfer);
      },
    },
  };
}
