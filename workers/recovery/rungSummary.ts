/**
 * A measured rung told in numbers for the page: what its recovery steps did (fine-tuning's losses and curves, CLE's
 * pairs, bias correction's layers, the time each took), its mixed-precision search, and its recipe's label.
 */
import type { MixedPrecisionSummary, RungSummary } from './recoveryTypes.ts';
import type { QuantConfig } from '../../src/core/quantize/config.ts';
import type { RecoveryReport } from '../../src/core/recovery/quantizeWithRecovery.ts';
import { fewDecisionSamplesNote, type MixedPrecisionResult } from '../../src/core/search/mixedPrecision.ts';

/** The mixed-precision search in numbers, or null where none ran. */
export function mixedSummary(m: MixedPrecisionResult | undefined): MixedPrecisionSummary | null {
  if (!m) return null;
  const b = (k: 'act16' | 'w16' | 'float') => ({ ...m.budget[k] });
  return {
    metric: m.metric ?? 'cosine',
    startCosine: m.startCosine,
    cosine: m.cosine,
    reached: m.reached,
    samples: m.samples ?? 0,
    fewSamples: m.samples === undefined ? null : fewDecisionSamplesNote(m.metric, m.samples),
    measurements: m.steps.length,
    seconds: m.seconds,
    budget: { act16: b('act16'), w16: b('w16'), float: b('float') },
  };
}

/** What the recovery steps of a run did, in the numbers the page shows. */
export function recoveryFacts(
  r: RecoveryReport,
): Pick<RungSummary, 'finetune' | 'cle' | 'biasCorrection' | 'skippedLayers' | 'timing' | 'bodyWarning'> {
  return {
    timing: {
      cle: r.seconds.cle,
      calibrate: r.seconds.calibrate,
      gather: r.seconds.gather,
      finetune: r.finetune?.seconds ?? 0,
      biasCorrection: r.biasCorrection?.seconds ?? 0,
      total: r.seconds.total,
    },
    finetune: r.finetune
      ? {
          algorithm: r.finetune.algorithm,
          lossBefore: r.finetune.lossBefore,
          lossAfter: r.finetune.lossAfter,
          layers: r.finetune.layers.map((l) => ({
            id: l.id,
            lossBefore: l.lossBefore,
            lossAfter: l.lossAfter,
            kept: l.kept,
            curve: l.curve,
          })),
          sensitive: r.finetune.sensitive
            ? {
                share: r.finetune.sensitive.share,
                why: r.finetune.sensitive.why,
                tuned: r.finetune.layers.length,
                of: r.finetune.layers.length + (r.finetune.unselected?.length ?? 0) + (r.finetune.untuned?.length ?? 0),
                concentration: r.finetune.sensitive.concentration ?? null,
              }
            : null,
        }
      : null,
    cle: r.cle ? { pairs: r.cle.pairs.length } : null,
    biasCorrection: r.biasCorrection ? { layers: r.biasCorrection.layers.length } : null,
    skippedLayers: r.skippedLayers.length,
    ...(r.untreatedInBodies ? { bodyWarning: r.untreatedInBodies.warning } : {}),
  };
}

/** "XINT8 + CLE + AdaRound + bias correction": what the user's own configuration does. */
export function recipeLabel(config: QuantConfig, name: string, mixedPrecision = false): string {
  const parts = [name];
  if (mixedPrecision) parts.push('mixed precision');
  if (config.enableNpuTransformer) parts.push('attention rules');
  if (config.includeSq) parts.push('SmoothQuant');
  if (config.includeCle) parts.push('CLE');
  if (config.includeFastFt)
    parts.push(config.extraOptions.FastFinetune.OptimAlgorithm === 'adaround' ? 'AdaRound' : 'AdaQuant');
  if (config.includeBiasCorrection) parts.push('bias correction');
  return parts.join(' + ');
}
