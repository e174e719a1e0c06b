/**
 * The ladder's report written by the page once the recovery worker stopped (a crash, out of memory) and took the climb
 * with it: from what the page kept after each rung (the report's ladder section and how the rungs were judged, sent
 * with each finished rung) and the picked rung's summary. The rungs' models went with the worker, so the report names
 * no quantized file, per-output rows or layers, and says why.
 */
import { RUNGS_JUDGED_AS_NPU_NOTE } from '../../core/halfFloat/bfloat16.ts';
import { buildReport, type Report } from '../../core/report/index.ts';
import { configToPlainJson, validateConfig } from '../../core/quantize/config.ts';
import type { LadderSoFar, RungSummary } from '../remote/workerTypes.ts';

export interface KeptLadderReportInput {
  readonly fileName: string;
  readonly kept: LadderSoFar;
  /** Index into the ladder's rungs of the rung the report is for. */
  readonly picked: number;
  /** That rung as the page has it, when it has it. */
  readonly rung: RungSummary | undefined;
  /** Why the worker stopped, as the page was told. */
  readonly error: { readonly name: string; readonly message: string } | null;
}

export function keptLadderReport({ fileName, kept, picked, rung, error }: KeptLadderReportInput): Report {
  const stoppedWhy = error ? `${error.name}: ${error.message}` : 'the recovery worker stopped';
  const config = rung && !rung.error ? validateConfig(JSON.parse(rung.config)) : null;
  return buildReport({
    title: `Accuracy-recovery ladder: ${fileName}`,
    createdAt: new Date().toISOString(),
    floatModel: { name: fileName, sha256: null, bytes: null },
    quantizedModel: null,
    config: rung && config ? { name: rung.label, settings: configToPlainJson(config) } : null,
    quantization: rung?.quantization ?? null,
    samples: kept.samples,
    dataSource: kept.dataSource,
    graphOptimization: kept.graphOptimization,
    outputs: [],
    ladder: { ...kept.ladder, chosen: picked, stopped: 'failed', error: stoppedWhy },
    timings: kept.ladder.rungs.map((r) => ({ label: `rung ${r.index}: ${r.label}`, seconds: r.seconds })),
    notes: [
      `The recovery worker stopped during the climb (${stoppedWhy}) and took its rungs' models with it: this report holds what the page kept of each finished rung. "Use this model" rebuilds a rung from its configuration; its download and evaluation then give the model file and its per-output figures.`,
      ...(kept.npuBf16 ? [RUNGS_JUDGED_AS_NPU_NOTE] : []),
    ],
  });
}
