/**
 * Where a comparison starts: after a quantization, one click puts the float and the quantized model side by side;
 * at any time two .onnx files dropped on (or picked with) the "Compare two models" target, or dropped together anywhere
 * on the page (the first then opens as the model too), open side by side. The models are decoded, folded, mapped
 * and laid out in the comparison worker (workers/compare/compareApi.ts), or, for a pair dropped on the page and for
 * float beside quantized after a run, by the same code in the model worker, which holds the first (the open model)
 * decoded already; the page shows the phase; errors are shown by
 * name. Performance marks for the benchmark: compare:start (asked), compare:received (the worker's result here,
 * its own seconds and the files it decoded in the mark's detail), compare:drawn (both panes painted, SplitView).
 */
import { useEffect, useRef, useState, type DragEvent } from 'react';
import { comparisonEnded, comparisonTaken, onComparisonRequest, type ComparisonRequest } from './compareRequests.ts';
import { ErrorCallout } from '../../components/ErrorCallout.tsx';
import {
  compareInWorker,
  warmCompareWorker,
  type CompareSource,
  type ComparisonResult,
} from '../../remote/compareRemote.ts';
import { compareWithOpenModel } from '../../remote/modelRemote.ts';
import { useStudio } from '../../store/index.ts';
import type { CompareModel } from './compareModel.ts';
import { checkCompareSize, twoModels } from './compareSources.ts';
import './compare.css';

export function CompareLauncher({
  handle,
  quantizedFile,
  onOpen,
}: {
  handle: string | null;
  quantizedFile: boolean;
  onOpen(model: CompareModel): void;
}) {
  const result = useStudio((s) => s.run.result);
  const fileName = useStudio((s) => s.model.fileName);
  const [busy, setBusy] = useState<{ fraction: number; phase: string } | null>(null);
  const [error, setError] = useState<{ name: string; message: string } | null>(null);
  const [over, setOver] = useState(false);
  const picker = useRef<HTMLInputElement>(null);

  useEffect(warmCompareWorker, []);

  /** Runs a comparison: `compare` gets the progress callback and answers with the worker's result. */
  const run = async (
    compare: (onProgress: (fraction: number, phase: string) => void) => Promise<ComparisonResult>,
    fromRun: boolean,
  ) => {
    performance.mark('compare:start');
    setBusy({ fraction: 0, phase: 'reading the models' });
    setError(null);
    try {
      let done = false;
      // Progress comes through its own message port and may arrive after the result: dropped then.
      const out = await compare((fraction, phase) => !done && setBusy({ fraction, phase }));
      done = true;
      performance.mark('compare:received', { detail: { ...out.seconds, decoded: out.decoded } });
      onOpen({ ...out.comparison, layouts: out.layouts, fromRun });
    } catch (e) {
      const err = e as Error;
      setError({ name: err?.name || 'Error', message: err?.message ?? String(e) });
    } finally {
      setBusy(null);
    }
  };
  /** Both models from the comparison worker: `sources` names them (files, or the open model's structure). */
  const inWorker = (sources: () => Promise<[CompareSource, CompareSource]>, fromRun: boolean) =>
    run(async (onProgress) => {
      const [a, b] = await sources();
      return compareInWorker(a, b, onProgress);
    }, fromRun);
  // After a run: the model worker compares the float model it holds with the quantized file (no structure copied
  // through the page, nothing decoded twice).
  const withQuantized = () =>
    run(async (onProgress) => {
      checkCompareSize(result!.blob, result!.fileName);
      const other = { name: result!.fileName, blob: result!.blob };
      return compareWithOpenModel(handle!, fileName ?? 'float model', other, onProgress);
    }, true);
  const withFiles = (files: File[]) =>
    inWorker(async () => {
      const [fa, fb] = twoModels(files);
      checkCompareSize(fa, fa.name);
      checkCompareSize(fb, fb.name);
      return [
        { name: fa.name, blob: fa },
        { name: fb.name, blob: fb },
      ];
    }, false);
  // Two models dropped together anywhere on the page (compareRequests.ts): the first was opened as the model, so the
  // model worker compares the model it holds with the second file; the pair is read here only when that open failed.
  const withDroppedPair = async (request: ComparisonRequest) => {
    const { files, firstOpened } = request;
    try {
      await firstOpened;
      const model = useStudio.getState().model;
      const [fa, fb] = files;
      if (!firstOpened || model.status !== 'ready' || model.fileName !== fa.name || !model.handle)
        return await withFiles(files);
      const handle = model.handle;
      return await run(async (onProgress) => {
        checkCompareSize(fb, fb.name);
        return compareWithOpenModel(handle, fa.name, { name: fb.name, blob: fb }, onProgress);
      }, false);
    } finally {
      comparisonEnded(request);
    }
  };
  const latest = useRef(withDroppedPair);
  latest.current = withDroppedPair;
  useEffect(
    () =>
      onComparisonRequest((request) => {
        comparisonTaken();
        void latest.current(request);
      }),
    [],
  );
  const onDrop = (e: DragEvent) => {
    e.preventDefault(); // taken here: the window's drop (which opens a model) leaves it (useWindowFileDrop.ts)
    setOver(false);
    void withFiles(Array.from(e.dataTransfer.files));
  };

  return (
    <div className="compare-launcher">
      {result && handle && !quantizedFile && (
        <button
          type="button"
          className="button button--small"
          disabled={busy !== null}
          onClick={() => void withQuantized()}
          data-testid="compare-quantized"
          title={`Float ${fileName ?? ''} and quantized ${result.fileName}, side by side`}
        >
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
        <button
          type="button"
          className="button button--small button--quiet"
          onClick={() => picker.current?.click()}
          disabled={busy !== null}
        >
          pick them
        </button>
        <input
          ref={picker}
          type="file"
          accept=".onnx"
          multiple
          hidden
          data-testid="compare-pick"
          onChange={(e) => {
            const files = Array.from(e.target.files ?? []);
            e.target.value = '';
            void withFiles(files);
          }}
        />
      </div>
      {busy && (
        <span className="small muted compare-launcher__busy" role="status" data-testid="compare-busy">
          <progress max={1} value={busy.fraction} aria-label="Preparing the comparison" /> Preparing the comparison:{' '}
          {busy.phase}…
        </span>
      )}
      {error && <ErrorCallout error={error} testId="compare-error" title="The two models could not be compared" />}
    </div>
  );
}
