/**
 * The two hidden pickers behind a drop zone's buttons: one for files, one for a whole folder (webkitdirectory). What
 * is picked goes to onPick, and the picker is emptied so that the same choice can be made again.
 */
import type { ChangeEvent, RefObject } from 'react';

export interface FilePickersProps {
  filesRef: RefObject<HTMLInputElement | null>;
  folderRef: RefObject<HTMLInputElement | null>;
  onPick: (files: FileList | null) => void;
  /** The files picker's accept list; the folder picker takes what the folder holds. */
  accept?: string;
  testIds: { files: string; folder: string };
}

export function FilePickers({ filesRef, folderRef, onPick, accept, testIds }: FilePickersProps) {
  const picked = (e: ChangeEvent<HTMLInputElement>) => {
    onPick(e.currentTarget.files);
    e.currentTarget.value = '';
  };
  return (
    <>
      <input ref={filesRef} type="file" multiple accept={accept} hidden data-testid={testIds.files} onChange={picked} />
      <input
        ref={folderRef}
        type="file"
        multiple
        hidden
        data-testid={testIds.folder}
        {...{ webkitdirectory: '' }}
        onChange={picked}
      />
    </>
  );
}
