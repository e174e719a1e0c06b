/**
 * The fine-tuning variants finetuneDetector.ts and finetuneRecognizer.ts run, as their command lines name them:
 * `plain` (no fine-tuning), `full`, `early` (FastFinetune EarlyStop, the plateau rule), `min=<θ>` (only the layers
 * whose own weight rounding costs at least θ of their output, RecoveryOptions.minRoundingError), `plateau=<share>` (the
 * plateau stop, RecoveryOptions.plateauStop), `sens=<share>` (only the layers
 * whose added noise sums to that share of all, RecoveryOptions.sensitiveShare; 02afd3b had it by error jumps in dB, and
 * `noise=<share>` for what `sens=` is now), `local` (RecoveryOptions.reconstruction 'local'), `adaquant` (AdaQuant
 * whatever the run's algorithm), `it=<n>` and `lr=<rate>` (FastFinetune NumIterations and LearningRate), `stride=<k>`
 * (AdaQuant strided as the ladder's --adaquant-stride: ladder.ts adaquantStrided; `stride=3` at 450 iterations is
 * `it=150+lr=3e-5`), joined by '+' (`early+min=1e-4`, `plateau=1e-3+min=1e-4`, `sens=0.8+adaquant`); and
 * the seconds per stage both print for a run. Without `sens=` a variant takes the sensitive-layer rule
 * (sensitiveShareRule: AdaRound on a model with attention blocks tunes the sensitive layers to 0.8); `sens=1` tunes
 * every layer whatever the model.
 */
import { withOptions, type QuantConfig } from '../../src/core/quantize/config.ts';
import type { RecoveryResult } from '../../src/core/recovery/quantizeWithRecovery.ts';
import { adaquantStrided } from '../../src/core/recovery/ladder.ts';

export interface FinetuneVariant {
  /** Whether the variant fine-tunes (every variant but `plain`). */
  readonly tune: boolean;
  /** `base` with fine-tuning switched on as the variant says. */
  readonly config: QuantConfig;
  /** The `min=<θ>` and `plateau=<share>` parts as quantizeWithRecovery's options; empty without them. */
  readonly recoveryOptions: {
    readonly minRoundingError?: number;
    readonly plateauStop?: number;
    readonly sensitiveShare?: number;
    readonly reconstruction?: 'local';
  };
}

/** The variant named `variant` of `base`, fine-tuning by `algorithm` for `iterations` iterations. */
export function finetuneVariant(
  base: QuantConfig,
  variant: string,
  algorithm: 'adaround' | 'adaquant',
  iterations: number,
): FinetuneVariant {
  const parts = variant.split('+');
  const min = parts.find((p) => p.startsWith('min='));
  const plateau = parts.find((p) => p.startsWith('plateau='));
  const sens = parts.find((p) => p.startsWith('sens='));
  const it = parts.find((p) => p.startsWith('it='));
  const lr = parts.find((p) => p.startsWith('lr='));
  const stride = parts.find((p) => p.startsWith('stride='));
  const tune = variant !== 'plain';
  if (parts.includes('adaquant')) algorithm = 'adaquant';
  const tuned = withOptions(base, {
    includeFastFt: tune,
    ...(tune
      ? {
          extraOptions: {
            FastFinetune: {
              OptimAlgorithm: algorithm,
              NumIterations: it ? Number(it.slice(3)) : iterations,
              EarlyStop: parts.includes('early'),
              // The algorithm's own rate unless given, as the ladder's rungs take it (ladder.ts rungConfig): before
              // 2026-11-29 15:25 an AdaQuant variant kept the AdaRound preset's 0.1 (see bench/README.md ladder-budget).
              LearningRate: lr
                ? Number(lr.slice(3))
                : base.extraOptions.FastFinetune.OptimAlgorithm === algorithm
                  ? base.extraOptions.FastFinetune.LearningRate
                  : undefined,
            },
          },
        }
      : {}),
  });
  const config = stride && algorithm === 'adaquant' ? adaquantStrided(tuned, Number(stride.slice(7))) : tuned;
  return {
    tune,
    config,
    recoveryOptions: {
      ...(min ? { minRoundingError: Number(min.slice(4)) } : {}),
      ...(plateau ? { plateauStop: Number(plateau.slice(8)) } : {}),
      ...(sens ? { sensitiveShare: Number(sens.slice(5)) } : {}),
      ...(parts.includes('local') ? { reconstruction: 'local' as const } : {}),
    },
  };
}

/** A run's seconds, wall and CPU (from process.cpuUsage since its start) and per stage of the recovery, to 0.1 s. */
export function stageSeconds(result: RecoveryResult, wallMs: number, cpu: NodeJS.CpuUsage) {
  const seconds = result.recovery.seconds;
  const ft = result.recovery.finetune;
  return {
    wallSeconds: +(wallMs / 1000).toFixed(1),
    cpuSeconds: +((cpu.user + cpu.system) / 1e6).toFixed(1),
    calibrateSeconds: +seconds.calibrate.toFixed(1),
    gatherSeconds: +seconds.gather.toFixed(1),
    gatherFloatSeconds: +seconds.gatherFloat.toFixed(1),
    buildSeconds: ft ? +ft.buildSeconds.toFixed(1) : 0,
    optimizerSeconds: ft ? +ft.seconds.toFixed(1) : 0,
    sensitivitySeconds: +(ft?.sensitivitySeconds ?? 0).toFixed(1),
  };
}

/** Which layers a run tuned and why, without the per-layer noises (the JSON line's `sensitive`); null without one. */
export function sensitiveFigures(result: RecoveryResult) {
  const s = result.recovery.finetune?.sensitive;
  return s ? { share: s.share, why: s.why, concentration: s.concentration, shared: s.shared } : null;
}
