import { describe, expect, it } from 'vitest';
import {
  chooseRung,
  climbLadder,
  ladderReport,
  ladderSoFar,
  rankRungs,
  parseLadderTarget,
  requiredReduction,
  rungConfig,
  rungLabel,
  adaquantStrided,
  isAdaquantStride,
  LadderTargetError,
  type RungMeasurement,
  type RungResult,
  type LadderOptions,
  type LadderTarget,
  type SkippedRung,
} from './ladder.ts';
import { withOptions, type QuantConfig } from '../quantize/config.ts';
import { getPreset } from '../quantize/presets.ts';

/**
 * A fake measurement: the score is looked up by the rung's label; unknown labels score 0.5 (0.51 with CLE). The labels
 * and configurations measured are recorded in order.
 */
function scoring(scores: Record<string, number>) {
  const tried: string[] = [];
  const configs: QuantConfig[] = [];
  const measure = async (c: QuantConfig, rung: { label: string }): Promise<RungMeasurement> => {
    tried.push(rung.label);
    configs.push(c);
    const score = scores[rung.label] ?? (rung.label.includes('CLE') ? 0.51 : 0.5);
    if (Number.isNaN(score)) throw new Error('boom');
    return { score, metrics: { cosine: score } };
  };
  return { tried, configs, measure };
}

const COSINE_99: LadderTarget = { metric: 'cosine', value: 0.99 };

/** The ladder climbed toward a cosine of 0.99 unless the options name another target. */
function climb(options: Omit<LadderOptions, 'target'> & { target?: LadderTarget }) {
  return climbLadder({ target: COSINE_99, ...options });
}

/** The ladder climbed with the fake measurement `scoring(scores)`: the labels and configurations it measured, and its result. */
async function climbScored(scores: Record<string, number>, options: Partial<LadderOptions> = {}) {
  const scored = scoring(scores);
  const result = await climb({ measure: scored.measure, ...options });
  return { ...scored, result };
}

describe('the best-practice ladder', () => {
  /** Five formats' scores, none meeting 0.99: XINT8's CLE measures worse than XINT8. */
  const FIVE_FORMATS = { XINT8: 0.9, 'XINT8 + CLE': 0.8, A8W8: 0.92, A16W8: 0.95, 'A16W8 per-channel': 0.97 };
  /** The 16-bit formats screened, each plain and with CLE. */
  const A16W8_SCREENING = ['A16W8', 'A16W8 + CLE', 'A16W8 per-channel', 'A16W8 per-channel + CLE'];
  /** A ladder of XINT8's per-tensor rungs alone. */
  const XINT8_ONLY: Partial<LadderOptions> = { formats: ['XINT8'], perChannelRung: false };
  /** A ladder of A8W8's per-tensor rungs alone. */
  const A8W8_ONLY: Partial<LadderOptions> = { formats: ['A8W8'], perChannelRung: false };

  it('in order fastest, screens every format without fine-tuning first, then fine-tunes from the closest to the target (AdaRound before AdaQuant), then exclusions', async () => {
    const { tried, result } = await climbScored(FIVE_FORMATS, {
      order: 'fastest',
      exclude: async (c) => ({ score: 0.6, metrics: { cosine: 0.6 }, config: { ...c, nodesToExclude: ['Conv_1'] } }),
    });
    expect(tried).toEqual([
      'XINT8',
      'XINT8 + CLE',
      'A8W8',
      'A8W8 + CLE',
      ...A16W8_SCREENING,
      // 0.97 needs a third of its error removed, 0.95 a fifth more, … XINT8 (0.9) 90 %: at the reach, still tried.
      'A16W8 per-channel + AdaRound',
      'A16W8 + AdaRound',
      'A8W8 + AdaRound',
      'XINT8 + AdaRound',
      'A16W8 per-channel + AdaQuant',
      'A16W8 + AdaQuant',
      'A8W8 + AdaQuant',
      'XINT8 + AdaQuant',
    ]);
    expect(result.results.at(-1)!.rung.label).toBe('Exclude sensitive nodes');
    expect(result.results.at(-1)!.config.nodesToExclude).toEqual(['Conv_1']);
    expect(result.stopped).toBe('exhausted');
    expect(result.chosen).toBe(6); // the best measured when none met the target
    expect(result.skipped).toEqual([]);
    expect(result.order).toBe('fastest');
  });

  it("with plainFirst (the default under a time budget), measures every 8-bit format's plain rung first, then the best one's variants, its fine-tuning and mixed precision, and the others' variants after, each saying why", async () => {
    const scores = { XINT8: 0.6, A8W8: 0.62, 'A8W8 per-channel': 0.8, 'A8W8 per-channel + attention rules': 0.9 };
    const { tried, result } = await climbScored(scores, {
      formats: ['XINT8', 'A8W8'],
      attentionRungs: true,
      finetuneReach: 1,
      plainFirst: true,
      mixed: async (c) => ({ score: 0.96, metrics: { cosine: 0.96 }, config: c }),
    });
    expect(tried.slice(0, 3)).toEqual(['XINT8', 'A8W8', 'A8W8 per-channel']);
    // The per-channel stage measured best: its variants next, then its fine-tuning and mixed precision.
    expect(tried.slice(3, 6)).toEqual([
      'A8W8 per-channel + CLE',
      'A8W8 per-channel + attention rules',
      'A8W8 per-channel + attention rules + SmoothQuant',
    ]);
    const labels = result.results.map((r) => r.rung.label);
    const mixedAt = labels.indexOf('Mixed precision (A8W8 per-channel + attention rules)');
    const firstLater = labels.indexOf('XINT8 + CLE');
    expect(labels.indexOf('A8W8 per-channel + attention rules + AdaRound')).toBeLessThan(firstLater);
    expect(mixedAt).toBeGreaterThan(5);
    expect(mixedAt).toBeLessThan(firstLater);
    expect(result.results[mixedAt].rung.why).toMatch(/: after 8-bit fine-tuning; the 8-bit routes/);
    // Every rung is still measured (no budget here): the per-tensor variants come after.
    expect(labels).toContain('A8W8 + attention rules');
    expect(result.results[0].rung.why).toMatch(/every 8-bit format's plain rung first/);
    expect(result.results[4].rung.why).toMatch(/its plain rung measured best of the 8-bit formats \(0\.8000/);
    expect(result.results[firstLater].rung.why).toMatch(
      /its plain rung measured 0\.6000.*below A8W8 per-channel's 0\.8000/,
    );
  });

  it('by default climbs every 8-bit route (screening, fine-tuning, mixed precision) before any 16-bit format', async () => {
    const { tried, result } = await climbScored(FIVE_FORMATS, {
      mixed: async (c) => ({ score: 0.96, metrics: { cosine: 0.96 }, config: c }),
      exclude: async (c) => ({ score: 0.6, metrics: { cosine: 0.6 }, config: c }),
    });
    expect(result.order).toBe('eight-bit-first');
    expect(result.results.map((r) => r.rung.label)).toEqual([
      'XINT8',
      'XINT8 + CLE',
      'A8W8',
      'A8W8 + CLE',
      // 8-bit fine-tuning, closest first: A8W8 (0.92, better than its CLE rung) before XINT8 (0.9, better than its CLE rung).
      'A8W8 + AdaRound',
      'XINT8 + AdaRound',
      'A8W8 + AdaQuant',
      'XINT8 + AdaQuant',
      'Mixed precision (A8W8 per-channel)',
      'Mixed precision (A8W8 per-channel) + AdaRound',
      ...A16W8_SCREENING,
      'A16W8 per-channel + AdaRound',
      'A16W8 + AdaRound',
      'A16W8 per-channel + AdaQuant',
      'A16W8 + AdaQuant',
      'Exclude sensitive nodes',
    ]);
    expect(tried.indexOf('A16W8')).toBeGreaterThan(tried.indexOf('Mixed precision (A8W8 per-channel) + AdaRound'));
  });

  it('chooses a mixed-precision 8-bit rung that meets the target over a 16-bit format that also meets it; order fastest takes the 16-bit format', async () => {
    const scores = { XINT8: 0.9, A8W8: 0.93, A16W8: 0.995, 'A16W8 per-channel': 0.997 };
    const mixedCalls: string[] = [];
    const mixed = async (c: QuantConfig) => {
      mixedCalls.push(c.activationType);
      return {
        score: 0.992,
        metrics: { cosine: 0.992 },
        config: {
          ...c,
          extraOptions: { ...c.extraOptions, TensorQuantOverrides: { t: [{ quant_type: 'int16' as const }] } },
        },
      };
    };
    const eight = await climbScored(scores, { cleApplies: () => false, mixed });
    const result = eight.result;
    expect(result.stopped).toBe('target');
    expect(result.results[result.chosen].rung.label).toBe('Mixed precision (A8W8 per-channel)');
    expect(result.results[result.chosen].config.activationType).toBe('int8');
    expect(eight.tried).not.toContain('A16W8');
    // 8-bit fine-tuning came first, under the reach rule: A8W8 needs 86 % of its error gone (tried), XINT8 90 % (tried).
    expect(eight.tried).toEqual([
      'XINT8',
      'A8W8',
      'A8W8 + AdaRound',
      'XINT8 + AdaRound',
      'A8W8 + AdaQuant',
      'XINT8 + AdaQuant',
    ]);

    mixedCalls.length = 0;
    const fast = await climbScored(scores, { order: 'fastest', cleApplies: () => false, mixed });
    const fastest = fast.result;
    expect(fast.tried).toEqual(['XINT8', 'A8W8', 'A16W8']);
    expect(fastest.results[fastest.chosen].rung.label).toBe('A16W8');
    expect(mixedCalls).toEqual([]);
  });

  it("with plainFirst, a climb whose every plain rung fails (or reads no figure) goes on in the flow's order instead of failing", async () => {
    // hello_deepa's one-number output read cosine NaN on both rungs, and the climb died: "Cannot read properties of undefined (reading 'stage')".
    const { result } = await climbScored(
      { XINT8: NaN, A8W8: NaN },
      { ...XINT8_ONLY, formats: ['XINT8', 'A8W8'], plainFirst: true },
    );
    expect(result.error).toBeUndefined();
    expect(result.stopped).not.toBe('failed');
  });

  it('skips, and lists, every fine-tuning and bias-correction rung on a model without a layer they reach (its compute in If bodies)', async () => {
    // Silero VAD op18: every Conv and Gemm inside one If; the rungs measured the same figure as their start.
    const mixed = async (c: QuantConfig) => ({ score: 0.91, metrics: { cosine: 0.91 }, config: c });
    const { tried, result } = await climbScored(
      { XINT8: 0.88, A8W8: 0.87, A16W8: 0.91, 'A16W8 per-channel': 0.999 },
      { cleApplies: () => false, tunableLayers: () => false, mixed, mixedBiasCorrection: true },
    );
    expect(tried.filter((t) => /AdaRound|AdaQuant|bias correction/.test(t))).toEqual([]);
    expect(result.results[result.chosen].rung.label).toBe('A16W8 per-channel');
    const mixedRung = result.results.find((r) => r.rung.recipe.mixedPrecision)!;
    expect(mixedRung.rung.why).toMatch(/after the 8-bit screening \(no 8-bit fine-tuning rung ran\)/);
    expect(mixedRung.rung.why).not.toMatch(/after 8-bit fine-tuning/);
    const noLayer = result.skipped.filter((k) =>
      /no Conv, Gemm or MatMul with a constant weight in the main graph/.test(k.reason),
    );
    expect(noLayer.map((k) => k.label)).toEqual(
      expect.arrayContaining([
        'XINT8 + AdaRound',
        'A8W8 + AdaQuant',
        'Mixed precision (XINT8 per-channel) + bias correction',
      ]),
    );
    // With layers to tune, the same scores try them.
    const tunable = await climbScored(
      { XINT8: 0.88, A8W8: 0.87, A16W8: 0.91, 'A16W8 per-channel': 0.999 },
      { cleApplies: () => false, mixed, mixedBiasCorrection: true },
    );
    expect(tunable.tried.some((t) => /AdaRound/.test(t))).toBe(true);
  });

  it('skips, and lists, the fine-tuning rungs whose error fine-tuning cannot be expected to remove, and CLE where it changes nothing', async () => {
    // Measured on a model far from 0.99 in 8 bits: only A16W8 per-channel comes near, and AdaRound takes it there.
    const far = { XINT8: 0.8274, A8W8: 0.8293, A16W8: 0.8483, 'A16W8 per-channel': 0.9839 };
    const tuned = { ...far, 'A16W8 per-channel + AdaRound': 0.9961 };
    const { tried, result } = await climbScored(tuned, { cleApplies: () => false, order: 'fastest' });
    expect(tried).toEqual(['XINT8', 'A8W8', 'A16W8', 'A16W8 per-channel', 'A16W8 per-channel + AdaRound']);
    expect(result.stopped).toBe('target');
    expect(result.chosen).toBe(4);
    expect(result.skipped.map((k) => k.label)).toEqual([
      'XINT8 + CLE',
      'A8W8 + CLE',
      'A16W8 + CLE',
      'A16W8 per-channel + CLE',
    ]);
    // 8-bit first: the same rungs measured here (the 8-bit ones cannot be fine-tuned to the target, and 16-bit formats
    // follow, so none is tried anyway), the 8-bit fine-tuning skipped and listed before the 16-bit formats are screened.
    const eight = await climbScored(tuned, { cleApplies: () => false });
    const eightResult = eight.result;
    expect(eight.tried).toEqual(['XINT8', 'A8W8', 'A16W8', 'A16W8 per-channel', 'A16W8 per-channel + AdaRound']);
    expect(eightResult.skipped.map((k) => k.label)).toEqual([
      'XINT8 + CLE',
      'A8W8 + CLE',
      'A8W8 + AdaRound',
      'XINT8 + AdaRound',
      'A8W8 + AdaQuant',
      'XINT8 + AdaQuant',
      'A16W8 + CLE',
      'A16W8 per-channel + CLE',
    ]);
    // Short of the target after AdaRound: the far formats are skipped, AdaQuant tried where it may still reach.
    const shortScores = { ...far, 'A16W8 per-channel + AdaRound': 0.985 };
    const short = await climbScored(shortScores, { cleApplies: () => false, order: 'fastest' });
    const shortResult = short.result;
    expect(short.tried.slice(4)).toEqual(['A16W8 per-channel + AdaRound', 'A16W8 per-channel + AdaQuant']);
    expect(shortResult.skipped.map((k) => k.label).slice(4)).toEqual([
      'A16W8 + AdaRound',
      'A8W8 + AdaRound',
      'XINT8 + AdaRound',
      'A16W8 + AdaQuant',
      'A8W8 + AdaQuant',
      'XINT8 + AdaQuant',
    ]);
    expect(shortResult.skipped[4].reason).toMatch(/93 % of the error of A16W8 \(0\.8483\)/);
    // With a reach of 1 every fine-tuning rung is tried, closest first.
    const all = await climbScored(far, {
      cleApplies: () => false,
      finetuneReach: 1,
      perChannelRung: true,
      order: 'fastest',
    });
    expect(all.tried.slice(4, 8)).toEqual([
      'A16W8 per-channel + AdaRound',
      'A16W8 + AdaRound',
      'A8W8 + AdaRound',
      'XINT8 + AdaRound',
    ]);
  });

  it('measures the share of error to remove on the metric: 1 − value, or the noise power for PSNR', () => {
    expect(requiredReduction('cosine', 0.98, 0.99)).toBeCloseTo(0.5, 12);
    expect(requiredReduction('top1', 0.9, 0.95)).toBeCloseTo(0.5, 12);
    expect(requiredReduction('psnr', 30, 40)).toBeCloseTo(0.9, 12);
    expect(requiredReduction('cosine', 0.995, 0.99)).toBeLessThan(0);
    expect(requiredReduction('cosine', NaN, 0.99)).toBe(Infinity);
  });

  it('puts the mixed-precision rungs after the 8-bit fine-tuning rungs, from the best 8-bit rung, fine-tuned on the chosen precisions', async () => {
    const { tried, measure } = scoring({ XINT8: 0.95, A8W8: 0.96, 'A8W8 + AdaRound': 0.97 });
    const mixedFrom: QuantConfig[] = [];
    const tuned: QuantConfig[] = [];
    const result = await climb({
      formats: ['XINT8', 'A8W8'],
      perChannelRung: false,
      measure: async (c, rung) => {
        if (rung.recipe.mixedPrecision) tuned.push(c);
        return measure(c, rung);
      },
      mixed: async (c) => {
        mixedFrom.push(c);
        const config = {
          ...c,
          nodesToExclude: ['Conv_9'],
          extraOptions: { ...c.extraOptions, TensorQuantOverrides: { t: [{ quant_type: 'int16' as const }] } },
        };
        return { score: 0.98, metrics: { cosine: 0.98 }, config };
      },
    });
    const labels = result.results.map((r) => r.rung.label);
    expect(labels.slice(-3)).toEqual([
      'XINT8 + AdaQuant',
      'Mixed precision (A8W8 per-channel)',
      'Mixed precision (A8W8 per-channel) + AdaRound',
    ]);
    expect(mixedFrom[0]).toMatchObject({ activationType: 'int8', perChannel: true, includeFastFt: false });
    expect(tuned[0]).toMatchObject({
      includeFastFt: true,
      nodesToExclude: ['Conv_9'],
      extraOptions: { TensorQuantOverrides: { t: [{ quant_type: 'int16' }] } },
    });
    expect(tried).not.toContain('Mixed precision (A8W8 per-channel)'); // the search rung is measured by mixed()
  });

  it('stops at the first rung that meets the target and chooses it: a screened format before any fine-tuning', async () => {
    const { tried, result } = await climbScored({ XINT8: 0.95, 'XINT8 + AdaRound': 0.995, A8W8: 0.999 });
    expect(tried).toEqual(['XINT8', 'XINT8 + CLE', 'A8W8']);
    expect(result.stopped).toBe('target');
    expect(result.chosen).toBe(2);
    expect(result.results[2].met).toBe(true);
  });

  it('keeps CLE under the fine-tuning rungs only when CLE alone measured better', async () => {
    const { tried } = await climbScored({ XINT8: 0.95, 'XINT8 + CLE': 0.94 }, XINT8_ONLY);
    expect(tried).toEqual(['XINT8', 'XINT8 + CLE', 'XINT8 + AdaRound', 'XINT8 + AdaQuant']);
    const better = await climbScored({ XINT8: 0.95, 'XINT8 + CLE': 0.96 }, XINT8_ONLY);
    expect(better.tried.slice(2)).toEqual(['XINT8 + CLE + AdaRound', 'XINT8 + CLE + AdaQuant']);
  });

  // Each rung's label, and whether its configuration enables the NPU transformer rules and SmoothQuant.
  it.each([
    {
      what: 'the attention rules and SmoothQuant for models with attention blocks, and fine-tunes from the best',
      rungs: { attentionRungs: true },
      scores: { 'XINT8 + attention rules + SmoothQuant': 0.94 },
      measured: [
        ['XINT8', false, false],
        ['XINT8 + CLE', false, false],
        ['XINT8 + attention rules', true, false],
        ['XINT8 + attention rules + SmoothQuant', true, true],
        ['XINT8 + attention rules + AdaRound', true, false],
      ],
    },
    {
      what: 'the function rules alone for models with written-out activations and no attention blocks',
      rungs: { functionRungs: true },
      scores: {} as Record<string, number>,
      measured: [
        ['XINT8', false, false],
        ['XINT8 + CLE', false, false],
        ['XINT8 + attention rules', true, false],
        ['XINT8 + attention rules + AdaRound', true, false],
      ],
    },
  ])('tries each format with $what', async ({ rungs, scores, measured }) => {
    const attention = { XINT8: 0.9, 'XINT8 + attention rules': 0.95, 'XINT8 + attention rules + AdaRound': 0.995 };
    const { tried, configs, result } = await climbScored({ ...attention, ...scores }, { ...XINT8_ONLY, ...rungs });
    expect(tried).toEqual(measured.map(([label]) => label));
    expect(configs.map((c) => [c.enableNpuTransformer, c.includeSq])).toEqual(measured.map(([, npu, sq]) => [npu, sq]));
    expect(result.stopped).toBe('target');
  });

  it('records a failing rung and goes on', async () => {
    const { result } = await climbScored({ XINT8: 0.95, 'XINT8 + CLE': NaN, 'XINT8 + AdaRound': 0.991 }, XINT8_ONLY);
    expect(result.results[1].error).toBe('Error: boom');
    expect(result.results[1].met).toBe(false);
    expect(result.results[2].rung.label).toBe('XINT8 + AdaRound'); // CLE failed, so it is not kept
    expect(result.chosen).toBe(2);
  });

  it('starts the exclusion search from the best configuration measured so far', async () => {
    let from: QuantConfig | null = null;
    await climbScored(
      { 'A8W8 + CLE': 0.9 },
      {
        exclude: async (c) => {
          from = c;
          return { score: 0.95, metrics: {} };
        },
      },
    );
    expect(from!.includeCle).toBe(true);
    expect(from!.activationType).toBe(getPreset('A8W8').activationType);
  });

  it('keeps what it measured when cancelled', async () => {
    const signal = { aborted: false };
    const { measure } = scoring({});
    const result = await climb({
      measure: async (c, r) => {
        if (r.index === 2) signal.aborted = true;
        return measure(c, r);
      },
      signal,
    });
    expect(result.stopped).toBe('cancelled');
    expect(result.results).toHaveLength(2);
  });

  it('keeps a mixed-precision rung the deadline stopped part-way that measured what it kept: chosen where best, ended "budget", said in the report', async () => {
    const signal = { aborted: false, budgetSpent: false };
    const result = await climb({
      ...XINT8_ONLY,
      tunableLayers: () => false,
      timeBudget: 600,
      signal,
      measure: scoring({}).measure,
      mixed: async () => {
        // The deadline comes during the rung's search; the rung ends measured on the best configuration it had.
        signal.budgetSpent = signal.aborted = true;
        return { score: 0.95, metrics: { cosine: 0.95 }, stoppedEarly: 'the time budget ran out during it: kept …' };
      },
    });
    expect(result.stopped).toBe('budget');
    const mixed = result.results.at(-1)!;
    expect(mixed.rung.recipe.mixedPrecision).toBe(true);
    expect(mixed.stoppedEarly).toBe('the time budget ran out during it: kept …');
    expect(mixed.error).toBeUndefined();
    expect(result.chosen).toBe(result.results.length - 1);
    const report = ladderReport(result);
    expect(report.rungs.at(-1)!.stoppedEarly).toBe(mixed.stoppedEarly);
    expect(report.rungs.slice(0, -1).every((r) => r.stoppedEarly === undefined)).toBe(true);
  });

  it('keeps the best rung when something between rungs fails: stopped "failed", with what failed', async () => {
    const { result } = await climbScored(
      { XINT8: 0.95 },
      {
        saturationRisk: () => {
          throw new RangeError('no kernels here');
        },
      },
    );
    expect(result.stopped).toBe('failed');
    expect(result.error).toBe('RangeError: no kernels here');
    expect(result.results).toHaveLength(2);
    expect(result.chosen).toBe(0);
  });

  it('tells the caller, rung by rung and skip by skip, what it needs to keep the best so far (ladderSoFar)', async () => {
    const results: RungResult[] = [];
    const skipped: SkippedRung[] = [];
    await climbScored(
      { XINT8: 0.9, 'XINT8 per-channel': 0.95 },
      {
        formats: ['XINT8'],
        cleApplies: () => false,
        onRung: (_r, m) => m && results.push(m),
        onSkip: (s) => skipped.push(s),
      },
    );
    const so = ladderSoFar(COSINE_99, 'eight-bit-first', results.slice(0, 2), skipped, 'cancelled');
    expect(so.chosen).toBe(1);
    expect(so.stopped).toBe('cancelled');
    expect(so.skipped.map((s) => s.label)).toEqual(['XINT8 + CLE', 'XINT8 per-channel + CLE']);
    expect(results.map((r) => r.rung.why).slice(0, 3)).toEqual([
      expect.stringMatching(/^screening XINT8:/),
      expect.stringMatching(/^screening XINT8 per-channel:/),
      expect.stringMatching(
        /^fine-tuning the 8-bit configurations .*closest to the target first \(1 of 2\).*XINT8 per-channel \(0\.9500\) needs 80 % of its error removed/,
      ),
    ]);
  });

  it('carries the user exclusions into every rung and gives each algorithm its own learning rate', () => {
    const base = { ...getPreset('XINT8'), nodesToExclude: ['Conv_9'] };
    const c = rungConfig(
      { preset: 'A16W8', perChannel: true, cle: true, finetune: 'adaquant', exclusions: false },
      base,
    );
    expect(c.nodesToExclude).toEqual(['Conv_9']);
    expect(c.perChannel).toBe(true);
    expect(c.includeCle).toBe(true);
    expect(c.includeFastFt).toBe(true);
    expect(c.extraOptions.FastFinetune.OptimAlgorithm).toBe('adaquant');
    expect(c.extraOptions.FastFinetune.LearningRate).toBe(
      rungConfig({ preset: 'XINT8', perChannel: false, cle: false, finetune: 'adaquant', exclusions: false })
        .extraOptions.FastFinetune.LearningRate,
    );
    expect(rungLabel({ preset: 'A16W8', perChannel: true, cle: true, finetune: 'adaquant', exclusions: false })).toBe(
      'A16W8 per-channel + CLE + AdaQuant',
    );
  });

  it('with adaquantStride k, measures its AdaQuant rungs at 1/k of the iterations and k × the learning rate, and its AdaRound rungs as set', async () => {
    const base = withOptions(getPreset('XINT8'), { extraOptions: { FastFinetune: { NumIterations: 450 } } });
    const { tried, configs } = await climbScored({}, { ...XINT8_ONLY, base, adaquantStride: 3 });
    const at = (label: string) => configs[tried.indexOf(label)].extraOptions.FastFinetune;
    const adaquantRate = rungConfig(
      { preset: 'XINT8', perChannel: false, cle: false, finetune: 'adaquant', exclusions: false },
      base,
    ).extraOptions.FastFinetune.LearningRate;
    expect(adaquantRate).toBe(1e-5);
    // (Unknown labels score 0.5, 0.51 with CLE: the fine-tuning rungs start from XINT8 + CLE.)
    expect(tried).toContain('XINT8 + CLE + AdaQuant (stride 3)');
    expect(at('XINT8 + CLE + AdaQuant (stride 3)')).toMatchObject({
      NumIterations: 150,
      LearningRate: 3e-5,
    });
    expect(at('XINT8 + CLE + AdaRound')).toMatchObject({ NumIterations: 450, LearningRate: 0.1 });
    // Without the option the AdaQuant rung is as configured.
    const plain = await climbScored({}, { ...XINT8_ONLY, base });
    expect(plain.configs[plain.tried.indexOf('XINT8 + CLE + AdaQuant')].extraOptions.FastFinetune).toMatchObject({
      NumIterations: 450,
      LearningRate: adaquantRate,
    });
  });

  it('strides AdaQuant: the iterations rounded up, a budget-fitted count kept, a stride of 1 the configuration itself', () => {
    const c = withOptions(getPreset('A8W8'), {
      extraOptions: { FastFinetune: { OptimAlgorithm: 'adaquant', NumIterations: 1000, LearningRate: 1e-5 } },
    });
    expect(adaquantStrided(c, 3).extraOptions.FastFinetune).toMatchObject({ NumIterations: 334, LearningRate: 3e-5 });
    expect(adaquantStrided(c, 3, 200).extraOptions.FastFinetune.NumIterations).toBe(200);
    expect(adaquantStrided(c, 1)).toBe(c);
    expect(
      rungLabel({
        preset: 'A8W8',
        perChannel: true,
        cle: false,
        finetune: 'adaquant',
        exclusions: false,
        adaquantStride: 3,
        iterations: 200,
      }),
    ).toBe('A8W8 per-channel + AdaQuant (stride 3, 200 iterations)');
    expect([1, 3].map(isAdaquantStride)).toEqual([true, true]);
    expect([0, 1.5, -2, NaN].map(isAdaquantStride)).toEqual([false, false, false, false]);
  });

  it("carries the user's calibration method and its settings into the formats of the same scale type, never across scale types", () => {
    const sequential = withOptions(getPreset('A8W8'), { calibrationMethod: 'Sequential' });
    const a16 = rungConfig(
      { preset: 'A16W8', perChannel: true, cle: false, finetune: null, exclusions: false },
      sequential,
    );
    expect(a16.calibrationMethod).toBe('Sequential');
    // XINT8's power-of-two MinMSE is not a float-scale method: it keeps its own, and a power-of-two base leaves A8W8 its own.
    expect(
      rungConfig({ preset: 'XINT8', perChannel: false, cle: false, finetune: null, exclusions: false }, sequential)
        .calibrationMethod,
    ).toBe('MinMSE');
    expect(
      rungConfig(
        { preset: 'A8W8', perChannel: false, cle: false, finetune: null, exclusions: false },
        getPreset('XINT8'),
      ).calibrationMethod,
    ).toBe('MinMax');
    // A8W8 calibrated with Percentile 99.9 and that method's default symmetry (symmetric ranges).
    const percentile = withOptions(getPreset('A8W8'), {
      calibrationMethod: 'Percentile',
      extraOptions: { Percentile: 99.9, CalibTensorRangeSymmetric: undefined },
    });
    const p = rungConfig(
      { preset: 'A8W8', perChannel: false, cle: false, finetune: null, exclusions: false },
      percentile,
    );
    expect([p.calibrationMethod, p.extraOptions.Percentile, p.extraOptions.CalibTensorRangeSymmetric]).toEqual([
      'Percentile',
      99.9,
      true,
    ]);
    // A recipe naming a method wins, with that method's own symmetry.
    const recipe = {
      preset: 'A8W8',
      perChannel: false,
      cle: false,
      finetune: null,
      exclusions: false,
      calibrationMethod: 'Sequential',
    } as const;
    const s = rungConfig(recipe, percentile);
    expect([s.calibrationMethod, s.extraOptions.CalibTensorRangeSymmetric]).toEqual(['Sequential', false]);
    expect(rungLabel({ ...recipe, transformer: true, cle: true, finetune: 'adaround' })).toBe(
      'A8W8 + Sequential ranges + attention rules + CLE + AdaRound',
    );
  });

  it('where CLE and the function rules each beat the plain format, measures them together', async () => {
    const scores = {
      A8W8: 0.9,
      'A8W8 + CLE': 0.91,
      'A8W8 + attention rules': 0.92,
      'A8W8 + attention rules + CLE': 0.93,
      'A8W8 + attention rules + CLE + AdaRound': 0.99,
    };
    const { tried, result } = await climbScored(scores, { ...A8W8_ONLY, functionRungs: true });
    expect(tried).toEqual([
      'A8W8',
      'A8W8 + CLE',
      'A8W8 + attention rules',
      'A8W8 + attention rules + CLE',
      'A8W8 + attention rules + CLE + AdaRound',
    ]);
    expect(result.results[3].config.includeCle && result.results[3].config.enableNpuTransformer).toBe(true);
    // Only one of them helped: no combined rung.
    const oneScores = { A8W8: 0.9, 'A8W8 + CLE': 0.89, 'A8W8 + attention rules': 0.92 };
    const one = await climbScored(oneScores, { ...A8W8_ONLY, functionRungs: true });
    expect(one.tried).not.toContain('A8W8 + attention rules + CLE');
  });

  it("with calibrationRungs, measures each float-scale stage's best recipe with Sequential ranges and fine-tunes from the better", async () => {
    const scores = {
      XINT8: 0.8,
      A8W8: 0.9,
      'A8W8 + attention rules': 0.92,
      'A8W8 per-channel': 0.93,
      'A8W8 per-channel + attention rules': 0.95,
      'A8W8 + Sequential ranges + attention rules': 0.93,
      'A8W8 per-channel + Sequential ranges + attention rules': 0.97,
      'A8W8 per-channel + Sequential ranges + attention rules + AdaRound': 0.977,
    };
    const { tried, configs, result } = await climbScored(scores, {
      target: { metric: 'cosine', value: 0.975 },
      functionRungs: true,
      calibrationRungs: true,
      formats: ['XINT8', 'A8W8'],
      cleApplies: () => false,
    });
    expect(tried).toEqual([
      // XINT8's power-of-two scales take no Sequential ranges.
      'XINT8',
      'XINT8 + attention rules',
      'A8W8',
      'A8W8 + attention rules',
      'A8W8 + Sequential ranges + attention rules',
      'A8W8 per-channel',
      'A8W8 per-channel + attention rules',
      'A8W8 per-channel + Sequential ranges + attention rules',
      'A8W8 per-channel + Sequential ranges + attention rules + AdaRound',
    ]);
    expect(
      configs[tried.indexOf('A8W8 per-channel + Sequential ranges + attention rules + AdaRound')].calibrationMethod,
    ).toBe('Sequential');
    expect(result.stopped).toBe('target');
    // A user already calibrating with Sequential gets no second Sequential rung.
    const base = withOptions(getPreset('A8W8'), { calibrationMethod: 'Sequential' });
    const seq = await climbScored({}, { ...A8W8_ONLY, base, calibrationRungs: true, cleApplies: () => false });
    expect(seq.tried.filter((l) => l.includes('Sequential'))).toEqual([]);
    // With attention blocks the calibration rung takes MinMSE ranges (measured best on the attention recognizer).
    const att = await climbScored(
      {},
      { ...A8W8_ONLY, attentionRungs: true, calibrationRungs: true, cleApplies: () => false },
    );
    expect(att.tried.filter((l) => l.includes('ranges'))).toEqual(['A8W8 + MinMSE ranges']);
  });

  it('where the judge says a model could saturate its int8 kernels, measures the best rung of the format again with saturation-safe weights and goes on from the better', async () => {
    const scores = { XINT8: 0.9, A8W8: 0.92, 'A8W8 + saturation-safe weights': 0.95 };
    const risky = new Set(['A8W8']); // XINT8's model has no weight that could saturate
    const twoFormats: Partial<LadderOptions> = {
      formats: ['XINT8', 'A8W8'],
      perChannelRung: false,
      cleApplies: () => false,
    };
    let mixedFrom: QuantConfig | undefined;
    const { tried, configs, result } = await climbScored(scores, {
      ...twoFormats,
      finetuneReach: 0.85,
      mixed: async (c) => {
        mixedFrom = c;
        return { score: 0.5, metrics: { cosine: 0.5 }, config: c };
      },
      saturationRisk: (r) => risky.has(r.rung.label),
    });
    const configOf = (label: string) => configs[tried.indexOf(label)];
    expect(result.results.map((r) => r.rung.label)).toEqual([
      'XINT8',
      'A8W8',
      'A8W8 + saturation-safe weights',
      // Fine-tuning (closest first, under the reach) and mixed precision start from the safe rung, the better of A8W8's.
      'A8W8 + saturation-safe weights + AdaRound',
      'A8W8 + saturation-safe weights + AdaQuant',
      'Mixed precision (A8W8 per-channel + saturation-safe weights)',
    ]);
    expect(configOf('A8W8').saturationSafeWeights).toBe(false);
    expect(configOf('A8W8 + saturation-safe weights').saturationSafeWeights).toBe(true);
    expect(configOf('A8W8 + saturation-safe weights + AdaRound').saturationSafeWeights).toBe(true);
    expect(mixedFrom!.saturationSafeWeights).toBe(true);
    expect(result.results[2].rung.step).toBe('ours');
    // Without a judge that saturates (the default), no such rung.
    const { result: plain } = await climbScored(scores, twoFormats);
    expect(plain.results.map((r) => r.rung.label).filter((l) => l.includes('saturation'))).toEqual([]);
    // A judge whose kernels are known not to saturate (onnxruntime-web's WASM): the rung is listed as skipped, with why.
    const { result: exact } = await climbScored(scores, {
      ...twoFormats,
      saturationRisk: (r) => risky.has(r.rung.label),
      saturationSafeSkipped: 'these kernels add in 32 bits',
    });
    expect(exact.results.map((r) => r.rung.label).filter((l) => l.includes('saturation'))).toEqual([]);
    expect(exact.skipped).toContainEqual({
      label: 'A8W8 + saturation-safe weights',
      reason: 'these kernels add in 32 bits',
    });
    expect(exact.skipped.filter((k) => k.label.includes('saturation'))).toHaveLength(1);
  });

  it('chooses the best measured rung when none met the target, and none when nothing was measured', () => {
    const r = (score: number, met = false) => ({ score, met }) as never;
    expect(chooseRung([r(0.5), r(0.8), r(NaN), r(0.7)])).toBe(1);
    expect(chooseRung([r(NaN)])).toBe(-1);
  });

  it('ranks the measured rungs best first, as chooseRung picks, failed rungs left out (the next to write when one cannot be)', () => {
    const r = (score: number, met = false, cer?: number) =>
      ({ score, met, metrics: cer === undefined ? {} : { cer } }) as unknown as RungResult;
    expect(rankRungs([r(0.5), r(NaN), r(0.9, true), r(0.7), r(0.95, true), r(0.7, false, 0.01)])).toEqual([
      2, 4, 3, 5, 0,
    ]);
    expect(rankRungs([])).toEqual([]);
  });

  it('breaks a tie of scores by the lower character error rate, else the higher cosine, else the earlier rung', () => {
    const r = (score: number, metrics: Record<string, number>) => ({ score, met: false, metrics }) as never;
    // PP-OCRv4 recognizer to sequence:0.9 on 8 lines: three rungs at 5/8, the third with a third of the CER.
    expect(
      chooseRung([
        r(0.625, { cer: 0.062, cosine: 0.959 }),
        r(0.5, { cer: 0.02, cosine: 0.99 }),
        r(0.625, { cer: 0.026, cosine: 0.976 }),
      ]),
    ).toBe(2);
    expect(chooseRung([r(0.9, { cosine: 0.95 }), r(0.9, { cosine: 0.97 })])).toBe(1);
    expect(chooseRung([r(0.9, { cer: 0.1, cosine: 0.97 }), r(0.9, { cer: 0.1, cosine: 0.95 })])).toBe(0);
    expect(chooseRung([r(0.9, {}), r(0.9, {})])).toBe(0);
  });
});

describe('ladder targets', () => {
  it.each([
    ['0.99', { metric: 'cosine', value: 0.99 }],
    ['cosine:0.995', { metric: 'cosine', value: 0.995 }],
    ['psnr:32', { metric: 'psnr', value: 32 }],
    ['TOP1:0.9', { metric: 'top1', value: 0.9 }],
    ['sequence:0.9', { metric: 'sequence', value: 0.9 }],
    ['decision:0.95', { metric: 'decision', value: 0.95 }],
  ])('reads %s', (text, expected) => expect(parseLadderTarget(text)).toEqual(expected));

  it.each(['ssim:0.9', 'cosine:1.5', 'top1:2', 'cosine:', 'psnr:abc', 'sequence:1.1', 'sequence:-0.1', 'decision:1.2'])(
    'names a bad target: %s',
    (text) => {
      expect(() => parseLadderTarget(text)).toThrow(LadderTargetError);
    },
  );

  it('says what a bad target lacks: a metric without its value, a value out of its range', () => {
    expect(() => parseLadderTarget('cosine')).toThrow('target "cosine" has no value: give cosine:<value>');
    expect(() => parseLadderTarget('top1:1.5')).toThrow('is not a valid top1: give from 0 to 1 (top1:0.99)');
    expect(() => parseLadderTarget('cosine:2')).toThrow('give above −1, at most 1');
  });
});
