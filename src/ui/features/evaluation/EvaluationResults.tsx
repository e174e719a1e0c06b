/**
 * A finished evaluation: the headline numbers (mean output cosine at onnxruntime-web's default options first, what a
 * user's session computes, and the model's own Q/DQ arithmetic beside it; worst layer, pace), the files
 * skipped, the output metrics, the per-layer chart and table, and the report downloads (HTML that
 * opens offline, and JSON), built from the same Report the page renders.
 */
import { useStudio } from '../../store/index.ts';
import { cosineSeverity, dbSeverity, formatCosine, formatDb, formatJump } from '../../../core/report/htmlText.ts';
import { headlineFigure } from '../../../core/report/headlineFigure.ts';
import { worstLayerMeaning } from '../../../core/report/worstLayerMeaning.ts';
import {
  DEFAULT_GRAPH_OPTIMIZATION,
  graphOptimizationLabel,
  graphOptimizationText,
} from '../../../core/runtime/graphOptimization.ts';
import type { ReactNode } from 'react';
import { Callout } from '../../components/Callout.tsx';
import { AllZeroNote } from './AllZeroNote.tsx';
import { TensorName } from '../../components/TensorName.tsx';
import { plural } from '../../components/format.ts';
import { downloadText } from '../../components/useObjectUrl.ts';
import type { EvaluationOutcome, SuggestOutcome } from '../../store/evaluationSlice.ts';
import { LayerChart } from './LayerChart.tsx';
import { LayerTable } from './LayerTable.tsx';
import { OutputMetricsTable } from './OutputMetricsTable.tsx';
import { ResultReading } from './ResultReading.tsx';
import { TaskAccuracy } from './TaskAccuracy.tsx';
import { RanOn } from '../runtime/RanOn.tsx';
import { reportFileName, reportHtml, reportJson } from './reportFiles.ts';

function Headline({
  label,
  value,
  sub,
  note,
  severity,
  testId,
}: {
  label: string;
  value: string;
  sub?: ReactNode;
  /** A warning line under the figure (AllZeroNote). */
  note?: ReactNode;
  severity?: string;
  testId?: string;
}) {
  return (
    <div className="facts__item">
      <dt>{label}</dt>
      <dd>
        <span className={`facts__big eval-value--${severity ?? 'none'}`} data-testid={testId}>
          {value}
        </span>
        {/* A break opportunity before the sub: a long name goes whole to the next line instead of breaking mid-word. */}
        {sub && (
          <>
            {' '}
            <span className="facts__sub">{sub}</span>
          </>
        )}
        {note}
      </dd>
    </div>
  );
}

export function EvaluationResults({
  result,
  stale,
  search,
}: {
  result: EvaluationOutcome;
  stale: boolean;
  search: SuggestOutcome | null;
}) {
  const r = result.report;
  const worst = r.layers?.worst[0];
  const npu = r.npu;
  const atDefault = r.atDefault ?? null;
  const ownLevel = r.graphOptimization ?? DEFAULT_GRAPH_OPTIMIZATION;
  const jump = r.layers?.jumps[0];
  const ownFigure = headlineFigure(r.outputs, r.fidelity.meanCosine);
  const defaultFigure = atDefault && headlineFigure(atDefault.outputs, atDefault.fidelity.meanCosine);
  const name = r.quantizedModel?.name ?? 'model.quant.onnx';
  const parity = useStudio((s) => s.parity.result);
  // The parity check goes into the report when it ran on the model this evaluation judged.
  const parityOf = () => (parity && parity.quantized === result.quantized ? parity : null);
  return (
    <div className="eval-results" data-testid="eval-result">
      {stale && (
        <Callout kind="info" testId="eval-stale" title="From an earlier quantization">
          The model was quantized again since this evaluation; evaluate again to judge the new one.
        </Callout>
      )}
      <ResultReading result={result} />
      <dl className="facts">
        {atDefault && (
          <Headline
            label={`${defaultFigure!.label}, ${atDefault.runtime} default`}
            value={defaultFigure!.text}
            severity={cosineSeverity(defaultFigure!.value)}
            testId="eval-default-cosine"
            note={<AllZeroNote outputs={atDefault.outputs} testId="eval-default-all-zero" />}
            sub={`'${atDefault.graphOptimization}', fused int8 kernels: what a user's session computes`}
          />
        )}
        <Headline
          label={
            atDefault
              ? `${ownFigure.label}, own Q/DQ arithmetic${npu ? ', as written' : ''}`
              : npu
                ? `${ownFigure.label}, as written`
                : ownFigure.label
          }
          value={ownFigure.text}
          severity={cosineSeverity(ownFigure.value)}
          testId="eval-mean-cosine"
          note={<AllZeroNote outputs={r.outputs} testId="eval-all-zero" />}
          sub={`${atDefault ? `'${ownLevel}', Q/DQ as written; ` : ''}${plural(r.outputs.length, 'output')}, ${plural(r.data.samples, 'sample')}${npu ? '; float parts in float32' : ''}`}
        />
        {npu && (
          <Headline
            label="Mean output cosine, as the NPU runs it"
            value={formatCosine(npu.fidelity.meanCosine)}
            severity={cosineSeverity(npu.fidelity.meanCosine)}
            testId="eval-npu-cosine"
            note={<AllZeroNote outputs={npu.outputs} testId="eval-npu-all-zero" />}
            sub={
              npu.floatNodes === 0
                ? 'no float parts: the same model'
                : `float parts in BF16: ${plural(npu.floatNodes, 'node')}, ${plural(npu.activations, 'activation')} and ${plural(npu.weights, 'weight')} rounded`
            }
          />
        )}
        {worst && (
          <Headline
            label="Worst layer SQNR"
            value={`${formatDb(worst.sqnr)} dB`}
            severity={dbSeverity(worst.sqnr)}
            sub={<TensorName name={worst.node ?? worst.tensor} />}
            note={
              <span className="facts__meaning" data-testid="eval-worst-sqnr-meaning">
                {worstLayerMeaning(worst.sqnr, cosineSeverity((defaultFigure ?? ownFigure).value))}
              </span>
            }
            testId="eval-worst-sqnr"
          />
        )}
        {jump && (
          <Headline
            label="Largest error jump"
            value={formatJump(jump)}
            severity="poor"
            testId="eval-largest-jump"
            sub={
              <>
                SQNR falls there: <TensorName name={jump.node} /> ({jump.opType})
              </>
            }
          />
        )}
        <Headline
          label="Time per image"
          value={`${(result.secondsPerSample * 1000).toFixed(0)} ms`}
          testId="eval-seconds-per-image"
          sub="both models (where they ran: below)"
        />
      </dl>
      <RanOn step="Evaluation (both models)" backend={result.backend} testId="eval-ran-on" />
      {atDefault ? (
        <p
          className="muted"
          data-testid="eval-judged-by"
          data-graph-optimization={atDefault.graphOptimization}
          data-beside={ownLevel}
        >
          Judged first by {atDefault.runtime} at its default options:{' '}
          {graphOptimizationText(atDefault.graphOptimization)}. Beside it, {graphOptimizationText(ownLevel)}; the layer
          figures below are at that level (an exposed tensor keeps its node out of a fusion).{' '}
          <code>qstudio evaluate</code> reports onnxruntime-node&apos;s default the same way.
        </p>
      ) : (
        <p className="muted" data-testid="eval-judged-by" data-graph-optimization={ownLevel}>
          Judged by {graphOptimizationText(ownLevel)}. Evaluate again to measure it at onnxruntime-web&apos;s default
          options too.
        </p>
      )}
      {result.skipped.length > 0 && (
        <Callout kind="warning" testId="eval-skipped" title={`${plural(result.skipped.length, 'file')} skipped`}>
          <ul className="plain-list">
            {result.skipped.map((s) => (
              <li key={s.file} data-testid="eval-skipped-file">
                <span className="file-name">{s.file}</span>: {s.reason}
              </li>
            ))}
          </ul>
        </Callout>
      )}
      {r.task && <TaskAccuracy task={r.task} />}
      {atDefault && (
        <>
          <h4 className="eval-subtitle">
            Output metrics, {atDefault.runtime} default ({graphOptimizationLabel(atDefault.graphOptimization)})
          </h4>
          <OutputMetricsTable outputs={atDefault.outputs} testId="eval-default-outputs" />
        </>
      )}
      <h4 className="eval-subtitle">
        Output metrics{atDefault ? `, ${graphOptimizationLabel(ownLevel)}` : ''}
        {npu ? ', as written (float parts in float32)' : ''}
      </h4>
      <OutputMetricsTable outputs={r.outputs} />
      {npu && (
        <>
          <h4 className="eval-subtitle">Output metrics, as the NPU runs it (float parts in BF16)</h4>
          <OutputMetricsTable outputs={npu.outputs} testId="eval-npu-outputs" />
        </>
      )}
      {r.layers && (
        <>
          <h4 className="eval-subtitle">SQNR per layer</h4>
          <LayerChart layers={r.layers} />
          <h4 className="eval-subtitle">
            Layers by error
            {r.layers.jumps.length > 0
              ? `: ${plural(r.layers.jumps.length, 'error jump')} over ${r.layers.jumpThresholdDb} dB`
              : ''}
          </h4>
          <LayerTable layers={r.layers} precisions={r.precisions} />
        </>
      )}
      <div className="step__actions">
        <button
          type="button"
          className="button button--primary"
          data-testid="download-eval-html"
          onClick={() => downloadText(reportHtml(r, search, parityOf()), reportFileName(name, 'html'), 'text/html')}
        >
          Download report (HTML)
        </button>
        <button
          type="button"
          className="button"
          data-testid="download-eval-json"
          onClick={() => downloadText(reportJson(r, search, parityOf()), reportFileName(name, 'json'))}
        >
          Download report (JSON)
        </button>
      </div>
    </div>
  );
}
