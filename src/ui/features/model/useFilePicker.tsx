/**
 * The native file dialog, opened from any button: a hidden <input type="file" multiple> that accepts
 * .onnx models and lets the user add the model's external data files in the same selection.
 */
import { useCallback, useRef, type ReactElement } from 'react';
import { openFiles } from './actions.ts';

export function useFilePicker(): { openPicker: () => void; pickerInput: ReactElement } {
  const input = useRef<HTMLInputElement>(null);
  const openPicker = useCallback(() => input.current?.click(), []);
  const pickerInput = (
    <input
      ref={input}
      type="file"
      multiple
      // Models and the usual names of external data files; browsers add an "All files" choice for
      // data files with other names (older exporters write one extension-less file per tensor).
      accept=".onnx,.data,.onnx_data,.bin,.pb"
      hidden
      data-testid="file-input"
      onChange={(e) => {
        openFiles(e.currentTarget.files);
        e.currentTarget.value = ''; // choosing the same file again still fires change
      }}
    />
  );
  return { openPicker, pickerInput };
}
