/**
 * Where a comparison starts: after a quantization, one click puts the float and the quantized model side by side;
 * at any time two .onnx files dropped on (or picked with) the "Compare two models" target, or dropped together anywhere
 * on the page (the first then opens as the model too), open side by side. The
 * models are decoded on the page (compareSources.ts) and mapped (compareModel.ts); errors are shown by name.
 */
import { useEffect, useRef, useState, type DragEvent } from 'react';
import { comparisonTaken, onComparisonRequest } from './compareRequests.ts';
import { Callout } from '../../components/Callout.tsx';
import { graphStructure } from '../../remote/modelRemote.ts';
import { useStudio } from '../../store/index.ts';
import { buildCompareModel, type CompareModel } from './compareModel.ts';
import { structureOfBlob, twoModels } from './compareSources.ts';
import './compare.css';

export function CompareLauncher({ handle, quantizedFile, onOpen }: { handle: string | null; quantizedFile: boolean; onOpen(model: CompareModel): void }) {
  const result = useStudio((s) => s.run.result);
  const fileName = useStudio((s) => s.model.fileName);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<{ name: string; message: string } | null>(null);
  const [over, setOver] = useState(false);
  const picker = useRef<HTMLInputElement>(null);

  const run = async (make: () => Promise<CompareModel>) => {
    setBusy(true);
    setError(null);
    try {
      // A frame for the busy state before the decode and mapping hold the thread.
      await new Promise((r) => setTimeout(r, 0));
      onOpen(await make());
    } catch (e) {
      const err = e as Error;
      setError({ name: err?.name || 'Error', message: err?.message ?? String(e) });
    } finally {
      setBusy(false);
    }
  };
  const withQuantized = () =>
    run(async () => {
      const [a, b] = await Promise.all([graphStructure(handle!), structureOfBlob(result!.blob, result!.fileName)]);
      return { ...buildCompareModel({ name: fileName ?? 'float model', graph: a }, { name: result!.fileName, graph: b }), fromRun: true };
    });
  const withFiles = (files: File[]) =>
    run(async () => {
      const [fa, fb] = twoModels(files);
      const [a, b] = await Promise.all([structureOfBlob(fa, fa.name), structureOfBlob(fb, fb.name)]);
      return buildCompareModel({ name: fa.name, graph: a }, { name: fb.name, graph: b });
    });
  // Two models dropped together anywhere on the page (compareRequests.ts).
  const latest = useRef(withFiles);
  latest.current = withFiles;
  useEffect(() => onComparisonRequest((files) => {
    comparisonTaken();
    void latest.current(files);
  }), []);
  const onDrop = (e: DragEvent) => {
    e.preventDefault(); // taken here: the window's drop (which opens a model) leaves it (useWindowFileDrop.ts)
    setOver(false);
    void withFiles(Array.from(e.dataTransfer.files));
  };

  return (
    <div className="compare-launcher">
      {result && handle && !quantizedFile && (
        <button type="button" className="button button--small" disabled={busy} onClick={() => void withQuantized()} data-testid="compare-quantized" title={`Float ${fileName ?? ''} and quantized ${result.fileName}, side by side`}>
          Compare float and quantized
        </button>
      )}
      <div
        className={`compare-drop small${over ? ' compare-drop--over' : ''}`}
        data-testid="compare-drop"
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={onDrop}
      >
        Compare two models: drop two .onnx files here or{' '}
        <button type="button" className="button button--small button--quiet" onClick={() => picker.current?.click()} disabled={busy}>pick them</button>
        <input ref={picker} type="file" accept=".onnx" multiple hidden data-testid="compare-pick" onChange={(e) => {
          const files = Array.from(e.target.files ?? []);
          e.target.value = '';
          void withFiles(files);
        }} />
      </div>
      {busy && <span className="small muted" role="status" data-testid="compare-busy">Reading and matching the two models…</span>}
      {error && (
        <Callout kind="error" testId="compare-error" data={{ 'data-error-name': error.name }} title="The two models could not be compared">
          <p>{error.message}</p>
        </Callout>
      )}
    </div>
  );
}
