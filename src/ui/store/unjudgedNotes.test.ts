/**
 * The page's note on a cosine target beside an output of one number a sample: the same words as qstudio ladder and
 * suggest print (core unjudgedScoreNote), after the climb's first rung and the search's starting step; nothing with a
 * decision target, a model without such an output, or a single recovery run.
 */
import { describe, expect, it } from 'vitest';
import { unjudgedScoreNote } from '../../core/recovery/targetMeasure.ts';
import { initialRecoveryState, type RungSummary } from './recoverySlice.ts';
import { ladderUnjudgedNote as ladderNote, suggestUnjudgedNote as suggestNote } from './unjudgedNotes.ts';
import type { SuggestState } from './evaluationSlice.ts';

/** How the page names the decision target (TargetField's DECISION_TARGET), not the CLI's option. */
const AIM = 'the target “decisions alike”';
const ladderUnjudgedNote = (r: Parameters<typeof ladderNote>[0]) => ladderNote(r, AIM);
const suggestUnjudgedNote = (s: Parameters<typeof suggestNote>[0]) => suggestNote(s, AIM);

const rung = (metrics: Record<string, number>) => ({ index: 1, metrics }) as unknown as RungSummary;
const step = (n: number, decision?: number) =>
  ({
    step: n,
    candidate: null,
    cosine: 0.999,
    kept: true,
    bestCosine: 0.999,
    seconds: 1,
    decision,
  }) as SuggestState['steps'][number];

describe('the note on what a cosine target leaves unjudged', () => {
  it('follows the ladder’s first rung in the CLI’s words', () => {
    const ladder = {
      ...initialRecoveryState,
      mode: 'ladder' as const,
      rungs: [rung({ cosine: 0.999, decision: 0.9375 })],
    };
    const note = ladderUnjudgedNote(ladder);
    expect(note).toBe(unjudgedScoreNote('cosine', { cosine: 0.999, decision: 0.9375 }, 'rung', AIM));
    expect(note).toMatch(
      /^note: the cosine target judges only the outputs of more than one number a sample; .*"decision", 0\.93750 here\), and the target “decisions alike” aims at them$/,
    );
    // A PSNR target chosen: named as such.
    expect(ladderUnjudgedNote({ ...ladder, ladder: { ...ladder.ladder, metric: 'psnr' } })).toMatch(
      /^note: the psnr target/,
    );
    expect(ladderUnjudgedNote({ ...ladder, ladder: { ...ladder.ladder, metric: 'decision' } })).toBeNull();
    expect(ladderUnjudgedNote({ ...ladder, rungs: [rung({ cosine: 0.999 })] })).toBeNull();
    expect(ladderUnjudgedNote({ ...ladder, mode: 'recover' })).toBeNull();
    expect(ladderUnjudgedNote({ ...ladder, rungs: [] })).toBeNull();
  });

  it('follows the search’s starting step, each step’s decisions read by the worker', () => {
    const s = { metric: 'cosine' as const, outcome: null, steps: [step(0, 1), step(1, 0.96875)] };
    expect(suggestUnjudgedNote(s)).toBe(unjudgedScoreNote('cosine', { decision: 1 }, 'step', AIM));
    expect(suggestUnjudgedNote(s)).toContain('shown beside each step ("decision", 1.00000 here)');
    expect(suggestUnjudgedNote({ ...s, metric: 'decision' })).toBeNull();
    expect(suggestUnjudgedNote({ ...s, steps: [step(0)] })).toBeNull();
    expect(suggestUnjudgedNote({ ...s, steps: [] })).toBeNull();
  });
});
