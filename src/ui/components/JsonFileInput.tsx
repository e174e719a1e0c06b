/**
 * The hidden file input behind an "Import … JSON" button: takes one .json file, hands it on, and empties
 * itself so the same file can be picked again.
 */
import type { RefObject } from 'react';

export function JsonFileInput({
  inputRef,
  testId,
  onFile,
}: {
  inputRef: RefObject<HTMLInputElement | null>;
  testId: string;
  onFile: (file: File | undefined) => void;
}) {
  return (
    <input
      ref={inputRef}
      type="file"
      accept=".json,application/json"
      hidden
      data-testid={testId}
      onChange={(e) => {
        const file = e.currentTarget.files?.[0];
        e.currentTarget.value = '';
        onFile(file);
      }}
    />
  );
}
