/**
 * What a cosine (PSNR, top-1) target leaves unjudged on a model with an output of one number a sample beside others
 * (Silero VAD's speech probability beside its state, a wake-word score): the page says it as `qstudio ladder` and
 * `qstudio suggest` do, in the core's one wording (unjudgedScoreNote), after the ladder's first rung and the exclusion
 * search's starting step, naming the decision target as the page's target menu offers it rather than by the CLI's
 * option (`decisionTarget`, TargetField's DECISION_TARGET). Null where there is nothing to say.
 */
import { unjudgedScoreNote } from '../../core/recovery/targetMeasure.ts';
import type { SuggestState } from './evaluationSlice.ts';
import type { RecoveryState } from './recoverySlice.ts';

/** After the climb's first measured rung, from its figures (a single recovery run says nothing: it aims at no target). */
export function ladderUnjudgedNote(
  r: Pick<RecoveryState, 'mode' | 'rungs' | 'climb' | 'ladder'>,
  decisionTarget: string,
): string | null {
  const first = r.rungs[0];
  if (r.mode !== 'ladder' || !first) return null;
  return unjudgedScoreNote(r.climb?.target.metric ?? r.ladder.metric, first.metrics, 'rung', decisionTarget);
}

/** After the search's starting step, from the decisions it measured (the evaluation worker's `decision`). */
export function suggestUnjudgedNote(
  s: Pick<SuggestState, 'steps' | 'outcome' | 'metric'>,
  decisionTarget: string,
): string | null {
  const start = s.steps[0];
  if (!start || start.step !== 0 || start.decision === undefined) return null;
  return unjudgedScoreNote(s.outcome?.metric ?? s.metric, { decision: start.decision }, 'step', decisionTarget);
}
