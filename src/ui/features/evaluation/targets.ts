/**
 * The targets results are read against (ResultReading, the sample's card): the user's own where set — a
 * ladder target changed from its default, a search target changed from its default — else Quark's thresholds.
 */
import { QUARK_TARGETS, type ReadMetric, type Target } from '../../../core/report/reading.ts';
import type { StudioState } from '../../store/index.ts';
import { DEFAULT_TARGET_COSINE } from '../../store/evaluationSlice.ts';
import { DEFAULT_LADDER_CHOICE } from '../../store/recoverySlice.ts';

/** The targets results are read against: the user's where set (a ladder target, a search target), else Quark's. */
export function resultTargets(s: {
  recovery: Pick<StudioState['recovery'], 'ladder'>;
  evaluation: { suggest: Pick<StudioState['evaluation']['suggest'], 'target'> };
}): Record<ReadMetric, Target> {
  const ladder = s.recovery.ladder;
  const quark = (m: ReadMetric): Target => ({ value: QUARK_TARGETS[m], source: 'quark' });
  const cosine: Target =
    ladder.metric === 'cosine' && ladder.value !== DEFAULT_LADDER_CHOICE.value
      ? { value: ladder.value, source: 'user' }
      : s.evaluation.suggest.target !== DEFAULT_TARGET_COSINE && s.evaluation.suggest.target !== QUARK_TARGETS.cosine
        ? { value: s.evaluation.suggest.target, source: 'user' }
        : quark('cosine');
  const psnr: Target = ladder.metric === 'psnr' ? { value: ladder.value, source: 'user' } : quark('psnr');
  return { cosine, psnr };
}
