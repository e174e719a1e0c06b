/** The ladder under a time budget: durations parsed, each rung's cost estimated before it runs, rungs that cannot fit skipped and listed. */
import { describe, expect, it } from 'vitest';
import {
  estimateRung,
  ladderPrior,
  mixedSensitivitySamples,
  formatDuration,
  parseTimeBudget,
  priorCosts,
  rungKind,
  TimeBudgetError,
} from './ladderBudget.ts';
import {
  climbLadder,
  ladderReport,
  type Rung,
  type RungMeasurement,
  type RungRecipe,
  type RungResult,
} from './ladder.ts';
import { getPreset } from '../quantize/presets.ts';

const recipe = (p: Partial<RungRecipe> = {}): RungRecipe => ({
  preset: 'XINT8',
  perChannel: false,
  cle: false,
  finetune: null,
  exclusions: false,
  ...p,
});
const result = (index: number, r: RungRecipe, seconds: number, error?: string): RungResult => ({
  rung: { index, label: `r${index}`, step: 1, recipe: r },
  config: getPreset('XINT8'),
  score: 0.9,
  metrics: {},
  met: false,
  seconds,
  ...(error ? { error } : {}),
});
/** The prior of a YOLOX-nano-sized model (a million parameters) on 16 + 8 images, 200 iterations. */
const yoloxSizedPrior = () =>
  priorCosts({
    parameters: 1e6,
    calibrationSamples: 16,
    evaluationSamples: 8,
    iterations: 200,
    mixedMeasurements: 60,
    exclusionSteps: 10,
  });

describe('time budgets', () => {
  it('parses 15m, 90s, 1h30m, 2.5m and bare seconds; names anything else', () => {
    expect(parseTimeBudget('15m')).toBe(900);
    expect(parseTimeBudget('90s')).toBe(90);
    expect(parseTimeBudget('1h30m')).toBe(5400);
    expect(parseTimeBudget('2.5m')).toBe(150);
    expect(parseTimeBudget('600')).toBe(600);
    for (const bad of ['', '15 minutes', '-3m', '0', 'm', '3x'])
      expect(() => parseTimeBudget(bad)).toThrow(TimeBudgetError);
    expect(formatDuration(42)).toBe('42 s');
    expect(formatDuration(65)).toBe('1 min 05 s');
    expect(formatDuration(3720)).toBe('1 h 02 min');
  });

  it("does not multiply a screening rung's fixed second by the iterations: MNIST at 50,000 iterations is not minutes", () => {
    // MNIST (5,900 weights), 3 calibration and 3 evaluation samples: its fine-tuning rungs took 3 s (AdaRound) to a
    // minute (AdaQuant) on the page at 50,000 iterations; the prior said 25 minutes when it scaled the whole rung.
    const prior = ladderPrior(5_900, { calibrationSamples: 3, evaluationSamples: 3, iterations: 50_000 });
    expect(prior.screen).toBeLessThan(1.1);
    expect(prior.finetune).toBeGreaterThan(3);
    expect(prior.finetune).toBeLessThan(60);
  });

  it("estimates the mixed-precision rung on the samples it judges: a decision target's 16, not a cosine's 4", () => {
    // Silero-VAD-sized (300 k weights), 32 calibration and 8 evaluation chunks: the rung measures each candidate on 16
    // samples for a decision target (defaultSensitivitySamples), four times a cosine target's 4.
    const facts = { calibrationSamples: 32, evaluationSamples: 8, iterations: 100 };
    const cosine = ladderPrior(300_000, { ...facts, metric: 'cosine' });
    const decision = ladderPrior(300_000, { ...facts, metric: 'decision' });
    expect(decision.screen).toBe(cosine.screen);
    expect(decision.mixed - decision.screen).toBeCloseTo(4 * (cosine.mixed - cosine.screen), 6);
    expect(mixedSensitivitySamples('decision', 32)).toBe(16);
    expect(mixedSensitivitySamples('cosine', 32)).toBe(4);
    // Fewer calibration samples than that: the rung judges those it has.
    expect(mixedSensitivitySamples('decision', 6)).toBe(6);
    expect(ladderPrior(300_000, { ...facts, calibrationSamples: 4, metric: 'decision' }).mixed).toBe(
      ladderPrior(300_000, { ...facts, calibrationSamples: 4, metric: 'cosine' }).mixed,
    );
    // The rung's estimate before any mixed rung ran, scaled by a measured screening rung: four times the measurements' part.
    const mixed = recipe({ mixedPrecision: true });
    const screened = [result(1, recipe(), 2)];
    const speed = 2 / cosine.screen;
    expect(estimateRung(mixed, screened, decision).seconds).toBeCloseTo(decision.mixed * speed, 6);
    expect(estimateRung(mixed, screened, decision).seconds).toBeGreaterThan(
      3 * estimateRung(mixed, screened, cosine).seconds,
    );
  });

  it('estimates from the model and images first, then from the rungs measured, per kind', () => {
    const prior = yoloxSizedPrior();
    // YOLOX-nano-sized: a screening rung of about 13 s, fine-tuning at 200 iterations about seven times that (its
    // iterations grow with the model's part of a screening rung, not with its fixed second).
    expect(prior.screen).toBeCloseTo(1 + 3e-7 * 1e6 * 40, 6);
    expect(prior.finetune).toBeCloseTo(prior.screen + 0.03 * 200 * (prior.screen - 1), 6);
    expect(prior.finetune / prior.screen).toBeGreaterThan(6.5);
    expect(prior.exclusions).toBeCloseTo(prior.screen * 10, 6);
    expect(estimateRung(recipe(), [], prior)).toEqual({
      seconds: prior.screen,
      basis: "the model's size and the images",
    });
    // Two screening rungs measured at 10 and 20 s: the next screening rung is their mean.
    const measured = [result(1, recipe(), 10), result(2, recipe({ cle: true }), 20)];
    expect(estimateRung(recipe({ preset: 'A8W8' }), measured, prior)).toEqual({
      seconds: 15,
      basis: 'the mean of rungs 1, 2',
    });
    // No fine-tuning measured yet: the prior, scaled by how the screening rungs compared with the prior's screening figure.
    const ft = estimateRung(recipe({ finetune: 'adaround' }), measured, prior);
    expect(ft.seconds).toBeCloseTo(prior.finetune * (15 / prior.screen), 6);
    expect(ft.basis).toMatch(/scaled by the screening rungs/);
    // A fine-tuning rung measured: the next of the same algorithm costs what it cost; a failed rung is no evidence.
    const withFt = [
      ...measured,
      result(3, recipe({ finetune: 'adaround' }), 300),
      result(4, recipe({ finetune: 'adaround', cle: true }), 5, 'Error: boom'),
    ];
    expect(estimateRung(recipe({ preset: 'A8W8', finetune: 'adaround' }), withFt, prior)).toEqual({
      seconds: 300,
      basis: 'like rung 3',
    });
    expect(estimateRung(recipe({ finetune: 'adaquant' }), withFt, prior).seconds).toBe(300);
    // Sequential ranges cost several calibrations: never estimated from MinMax rungs alone as if equal.
    expect(estimateRung(recipe({ calibrationMethod: 'Sequential' }), measured, prior).seconds).toBeCloseTo(
      prior.screen * (15 / prior.screen) * 3,
      6,
    );
    expect(rungKind(recipe({ mixedPrecision: true, finetune: 'adaround' }))).toBe('finetune');
    expect(rungKind(recipe({ mixedPrecision: true }))).toBe('mixed');
  });

  it("takes off a fine-tuning rung's shared work (its float layer inputs, kept for later rungs) where the float model is the same", () => {
    const prior = yoloxSizedPrior();
    const first: RungResult = { ...result(3, recipe({ finetune: 'adaround' }), 100), sharedSeconds: 30 };
    expect(estimateRung(recipe({ preset: 'A8W8', finetune: 'adaround' }), [first], prior).seconds).toBe(70);
    expect(estimateRung(recipe({ finetune: 'adaquant' }), [first], prior).seconds).toBe(70);
    // CLE changes the float model: its layer inputs are gathered again.
    expect(estimateRung(recipe({ finetune: 'adaround', cle: true }), [first], prior).seconds).toBe(100);
    // A later rung that reused them is its own evidence, as measured.
    const second = result(4, recipe({ finetune: 'adaround' }), 68);
    expect(estimateRung(recipe({ finetune: 'adaround' }), [first, second], prior).seconds).toBe(69);
  });

  it('costs the exclusion search as steps of the rung it starts from where that rung fine-tunes (UltraFace: 12 s estimated, 47 s taken)', () => {
    const prior = { screen: 1, finetune: 5, mixed: 10, exclusions: 10 };
    const screens = [result(1, recipe(), 1.1), result(2, recipe({ cle: true }), 1.3)];
    const tuned: RungResult = {
      ...result(5, recipe({ mixedPrecision: true, finetune: 'adaround' }), 4.9),
      sharedSeconds: 0.1,
    };
    const exclusions = recipe({ exclusions: true });
    // From a screening rung no dearer than their mean: ten screening rungs' worth, as before.
    expect(estimateRung(exclusions, screens, prior, screens[0]).seconds).toBeCloseTo(12, 6);
    expect(estimateRung(exclusions, screens, prior).seconds).toBeCloseTo(12, 6);
    // From the fine-tuned rung: ten of its measurements (less the float layer data it shares).
    const e = estimateRung(exclusions, [...screens, tuned], prior, tuned);
    expect(e.seconds).toBeCloseTo(48, 6);
    expect(e.basis).toMatch(/each step like rung 5 \(5 s\), which it starts from$/);
    // The deadline stops the search with the best it measured: one measurement is the least that gives a result.
    expect(e.firstResult).toBeCloseTo(4.8, 6);
  });

  it('runs the exclusion search where one of its measurements fits in what is left, though not all of them', async () => {
    for (const [budget, ran] of [
      [30, true],
      [21, false],
    ] as const) {
      let clock = 0;
      const result = await climbLadder({
        target: { metric: 'cosine', value: 0.99 },
        formats: ['XINT8'],
        perChannelRung: false,
        timeBudget: budget,
        finetuneReach: 0,
        costPrior: { screen: 10, finetune: 1000, mixed: 1000, exclusions: 100 },
        now: () => clock,
        measure: async () => {
          clock += 10;
          return { score: 0.9, metrics: {} };
        },
        exclude: async (config) => {
          clock += 5;
          return { score: 0.95, metrics: {}, config };
        },
      });
      // XINT8 and + CLE take 20 s; the search is estimated at ten 10-s measurements, its first at 10 s.
      expect(result.results.some((r) => r.rung.recipe.exclusions)).toBe(ran);
      if (!ran) expect(result.skipped.at(-1)!.reason).toMatch(/its first measurement 10 s, 1 s of 21 s left$/);
    }
  });

  it('costs a bias-correction rung as half a fine-tuning rung until one is measured', () => {
    const prior = yoloxSizedPrior();
    const bc = recipe({ mixedPrecision: true, biasCorrection: true });
    expect(rungKind(bc)).toBe('finetune');
    expect(estimateRung(bc, [], prior).seconds).toBeCloseTo(prior.finetune / 2, 6);
    const tuned = result(3, recipe({ finetune: 'adaround' }), 100);
    expect(estimateRung(bc, [tuned], prior)).toEqual({ seconds: 50, basis: '50 % of rung 3' });
    // Measured once, it is its own estimate; a fine-tuning rung is never estimated from it.
    const corrected = result(4, bc, 30);
    expect(estimateRung(bc, [tuned, corrected], prior).seconds).toBe(30);
    expect(estimateRung(recipe({ finetune: 'adaround' }), [corrected], prior)).toEqual({
      seconds: prior.finetune,
      basis: "the model's size and the images",
    });
  });

  it('skips and lists the rungs that cannot fit in what is left, shows each estimate, and ends "budget" with the best kept', async () => {
    // A fake clock: screening costs 10 s, fine-tuning 200 s; the budget is 100 s.
    let clock = 0;
    const cost = (r: Rung) => (r.recipe.finetune ? 200 : 10);
    const seen: Rung[] = [];
    const measure = async (_c: unknown, r: Rung): Promise<RungMeasurement> => {
      clock += cost(r);
      const score = r.recipe.finetune ? 0.97 : r.recipe.cle ? 0.93 : 0.92;
      return { score, metrics: { cosine: score } };
    };
    const prior = { screen: 10, finetune: 5000, mixed: 100, exclusions: 100 };
    const result = await climbLadder({
      target: { metric: 'cosine', value: 0.99 },
      formats: ['XINT8'],
      perChannelRung: false,
      timeBudget: 100,
      costPrior: prior,
      now: () => clock,
      measure: measure as never,
      onRung: (r, m) => {
        if (!m) seen.push(r);
      },
    });
    // XINT8 and XINT8 + CLE fit (10 s each); the fine-tuning rungs (estimated 5000 s from the prior) do not, even with 100 iterations.
    expect(result.results.map((r) => r.rung.label)).toEqual(['XINT8', 'XINT8 + CLE']);
    expect(result.skipped.map((s) => s.label)).toEqual(['XINT8 + CLE + AdaRound', 'XINT8 + CLE + AdaQuant']);
    expect(result.skipped[0].reason).toMatch(
      /^over the time budget: estimated 1 h 23 min \(.*\), 1 min 20 s of 1 min 40 s left$/,
    );
    expect(result.stopped).toBe('budget');
    expect(result.chosen).toBe(1); // the best measured within the budget
    expect(result.budget).toEqual({ seconds: 100, used: 20 });
    expect(seen[0].estimate).toEqual({ seconds: 10, basis: "the model's size and the images" });
    expect(seen[1].estimate).toEqual({ seconds: 10, basis: 'like rung 1' });
    expect(seen[1].why).toMatch(/CLE/);
    expect(seen[0].of).toBeGreaterThanOrEqual(seen.length);
    const report = ladderReport(result);
    expect(report.stopped).toBe('budget');
    expect(report.rungs[1].estimate).toEqual({ seconds: 10, basis: 'like rung 1' });
  });

  it('always measures the first rung, however tight the budget, so that a climb ends with a model', async () => {
    let clock = 0;
    const result = await climbLadder({
      target: { metric: 'cosine', value: 0.99 },
      formats: ['XINT8'],
      perChannelRung: false,
      timeBudget: 1,
      costPrior: { screen: 50, finetune: 500, mixed: 500, exclusions: 500 },
      now: () => clock,
      measure: async () => {
        clock += 50;
        return { score: 0.9, metrics: {} };
      },
    });
    expect(result.results).toHaveLength(1);
    expect(result.stopped).toBe('budget');
    expect(result.chosen).toBe(0);
  });

  it('a climb the caller aborts past its budget (the deadline) ends "budget", before it "cancelled"', async () => {
    for (const [at, stopped] of [
      [150, 'budget'],
      [50, 'cancelled'],
    ] as const) {
      let clock = 0;
      const signal = { aborted: false };
      const result = await climbLadder({
        target: { metric: 'cosine', value: 0.99 },
        timeBudget: 100,
        now: () => clock,
        signal,
        measure: async () => {
          clock = at;
          signal.aborted = true;
          return { score: 0.9, metrics: {} };
        },
      });
      expect(result.stopped).toBe(stopped);
      expect(result.results).toHaveLength(1);
    }
    // The deadline's own abort says so: 'budget' even when the caller's timer fired a moment before the climb's clock ran out.
    let clock = 0;
    const deadline = { aborted: false, budgetSpent: false };
    const early = await climbLadder({
      target: { metric: 'cosine', value: 0.99 },
      timeBudget: 100,
      now: () => clock,
      signal: deadline,
      measure: async () => {
        clock = 99.9;
        deadline.budgetSpent = true;
        deadline.aborted = true;
        return { score: 0.9, metrics: {} };
      },
    });
    expect(early.stopped).toBe('budget');
  });

  it('a climb whose last rung the deadline cut short ends "budget", not "exhausted" (the page read the latter as a Cancel)', async () => {
    for (const [budgetSpent, stopped] of [
      [true, 'budget'],
      [false, 'exhausted'],
    ] as const) {
      let clock = 0;
      const signal = { aborted: false, budgetSpent: false };
      const result = await climbLadder({
        target: { metric: 'cosine', value: 0.99 },
        formats: ['XINT8'],
        perChannelRung: false,
        timeBudget: 100,
        costPrior: { screen: 10, finetune: 20, mixed: 20, exclusions: 20 },
        now: () => clock,
        signal,
        measure: async () => {
          clock += 10;
          return { score: 0.9, metrics: {} };
        },
        // The exclusion search, last, runs past the deadline and returns the best it measured before the abort.
        exclude: async (config) => {
          clock = budgetSpent ? 101 : clock + 10;
          if (budgetSpent) Object.assign(signal, { aborted: true, budgetSpent: true });
          return { score: 0.95, metrics: {}, config };
        },
      });
      expect(result.results.at(-1)!.rung.label).toBe('Exclude sensitive nodes');
      expect(result.stopped).toBe(stopped);
    }
  });

  it('orders 8-bit fine-tuning and mixed precision by expected error removed per second: the cheaper route per share first, and says why', async () => {
    const order = async (prior: { screen: number; finetune: number; mixed: number; exclusions: number }) => {
      let clock = 0;
      const result = await climbLadder({
        target: { metric: 'cosine', value: 0.99 },
        formats: ['XINT8'],
        perChannelRung: false,
        cleApplies: () => false,
        costPrior: prior,
        now: () => clock,
        measure: async (_c, r) => {
          clock += r.recipe.finetune ? prior.finetune : prior.screen;
          return { score: 0.95, metrics: {} };
        },
        mixed: async (c) => {
          clock += prior.mixed;
          return { score: 0.96, metrics: {}, config: c };
        },
      });
      return result.results.map(
        (r) =>
          `${r.rung.label}${r.rung.why?.includes('mixed precision before 8-bit fine-tuning') ? ' (mixed first)' : ''}`,
      );
    };
    // Fine-tuning at 1000 iterations a layer (the recognizer's case): 60 % in 130 s beats 40 % in 310 s.
    expect(await order({ screen: 10, finetune: 310, mixed: 130, exclusions: 100 })).toEqual([
      'XINT8',
      'Mixed precision (XINT8 per-channel) (mixed first)',
      'Mixed precision (XINT8 per-channel) + AdaRound',
      'XINT8 + AdaRound',
      'XINT8 + AdaQuant',
    ]);
    // Cheap fine-tuning (200 iterations, YOLOX-nano's bench): 40 % in 70 s beats 60 % in 130 s: the flow's order.
    expect(await order({ screen: 10, finetune: 70, mixed: 130, exclusions: 100 })).toEqual([
      'XINT8',
      'XINT8 + AdaRound',
      'XINT8 + AdaQuant',
      'Mixed precision (XINT8 per-channel)',
      'Mixed precision (XINT8 per-channel) + AdaRound',
    ]);
  });

  it("fits a fine-tuning rung that cannot finish at the user's iterations to what is left, with fewer iterations that fit", async () => {
    let clock = 0;
    const configs: number[] = [];
    const seen: Rung[] = [];
    const result = await climbLadder({
      target: { metric: 'cosine', value: 0.99 },
      formats: ['XINT8'],
      perChannelRung: false,
      cleApplies: () => false,
      timeBudget: 300,
      costPrior: { screen: 10, finetune: 310, mixed: 1000, exclusions: 1000 }, // 1000 iterations: 10 s + 300 s
      now: () => clock,
      measure: async (c, r) => {
        if (r.recipe.finetune) configs.push(c.extraOptions.FastFinetune.NumIterations);
        clock += r.recipe.finetune ? 10 + 0.3 * c.extraOptions.FastFinetune.NumIterations : 10;
        return { score: 0.95, metrics: {} };
      },
      onRung: (r, m) => {
        if (!m) seen.push(r);
      },
    });
    // 290 s left after XINT8: 900 iterations fit; then 10 s are left, too few for AdaQuant at any count: skipped.
    expect(result.results.map((r) => r.rung.label)).toEqual(['XINT8', 'XINT8 + AdaRound (900 iterations)']);
    expect(configs).toEqual([900]);
    expect(result.skipped.map((k) => k.label)).toEqual(['XINT8 + CLE', 'XINT8 + AdaQuant']);
    expect(seen[1].why).toMatch(
      /at 1000 iterations a layer it would take about 5 min 10 s .*, 4 min 50 s are left: 900 iterations fit$/,
    );
    expect(seen[1].estimate!.basis).toMatch(/scaled to 900 of 1000 iterations$/);
    expect(result.stopped).toBe('budget');
  });
});
