/** The report of one climb of the recovery worker (core buildReport with its ladder section). */
import { RUNGS_JUDGED_AS_NPU_NOTE } from '../../src/core/halfFloat/bfloat16.ts';
import { encode } from '../../src/core/onnx/index.ts';
import { configToPlainJson } from '../../src/core/quantize/config.ts';
import { buildReport, type Report } from '../../src/core/report/index.ts';
import { ladderReport } from '../../src/core/recovery/ladder.ts';
import { sha256Hex } from '../../src/core/report/sha256.ts';
import { nodePrecisions } from '../../src/core/quantize/precisionClasses.ts';
import type { RecoveryContext } from './recoveryContext.ts';
import { modelStem } from '../../src/core/onnx/fileName.ts';

/**
 * The report of a climb (core buildReport, with its ladder section), for the rung the user picked
 * (default: the chosen one): that rung's model, configuration and output metrics.
 */
export async function ladderRunReport(ctx: RecoveryContext, ladderHandle: string, picked?: number): Promise<Report> {
  const { models, rungs, ladders } = ctx;
  const l = ladders.get(ladderHandle);
  const h = models.get(l.model);
  const index = picked ?? l.result.chosen;
  const rungHandle = l.handles[index];
  const rung = rungHandle ? rungs.get(rungHandle) : null;
  const result = { ...l.result, chosen: index };
  const bytes = rung ? encode(rung.model) : null;
  return buildReport({
    title: `Accuracy-recovery ladder: ${h.file.name}`,
    createdAt: new Date().toISOString(),
    floatModel: h.file,
    quantizedModel:
      bytes && rung
        ? {
            name: `${modelStem(h.file.name)}.quant.onnx`,
            bytes: bytes.length,
            sha256: await sha256Hex(bytes),
          }
        : null,
    config: rung ? { name: rung.label, settings: configToPlainJson(rung.config) } : null,
    exclusions: rung ? rung.report.exclusions.map((x) => ({ rule: x.rule, ids: [...x.ids] })) : [],
    quantization: rung
      ? {
          nodes: rung.report.counts.nodes,
          quantized: rung.report.counts.quantized,
          float: rung.report.counts.float,
        }
      : null,
    precisions: rung ? nodePrecisions(rung.report) : null,
    samples: rung?.samples ?? 0,
    dataSource: l.dataSource,
    graphOptimization: l.aim,
    outputs: rung?.outputs ?? [],
    ladder: ladderReport(result),
    timings: l.result.results.map((r) => ({ label: `rung ${r.rung.index}: ${r.rung.label}`, seconds: r.seconds })),
    notes: l.npuBf16 ? [RUNGS_JUDGED_AS_NPU_NOTE] : [],
  });
}
