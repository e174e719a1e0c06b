/**
 * The layers inside If/Loop/Scan bodies that a recovery step asked for would have treated in the main graph, and did
 * not: SmoothQuant's smoothed activations, and the Conv/Gemm/MatMul layers bias correction and fine-tuning work on
 * (CLE equalizes body pairs like the main graph's: BODY_STEPS). A model such as Silero VAD keeps all its compute inside one If: a step that sees only the main
 * graph there does nothing, and the run must say so by count (bodyRecoveryWarning) rather than report "0 layers".
 * Bodies are seen as the quantizer sees them (quantize/bodyViews.ts). Pure: reads the model, changes nothing.
 */
import type { ModelProto } from '../onnx/model.ts';
import type { QuantConfig } from '../quantize/config.ts';
import { scopedBodies } from '../quantize/bodyViews.ts';
import { linearLayerNodes } from './linearLayers.ts';
import { smoothQuantCandidates } from './smoothQuant.ts';

export type RecoveryStep = 'CLE' | 'SmoothQuant' | 'bias correction' | 'fine-tuning';

/** The recovery steps that work inside If/Loop/Scan bodies too; the others are counted by untreatedBodyLayers. */
export const BODY_STEPS: ReadonlySet<RecoveryStep> = new Set(['CLE']);

/** What one step left untouched inside bodies: its units there (activations or layers) by scoped id. */
export interface UntreatedBodyLayers {
  readonly step: RecoveryStep;
  /** 'activations' (SmoothQuant: tensor names) or 'layers' (scoped node ids). */
  readonly unit: 'activations' | 'layers';
  readonly ids: readonly string[];
}

/** The recovery steps a configuration asks for. */
export function askedSteps(config: QuantConfig): RecoveryStep[] {
  const steps: RecoveryStep[] = [];
  if (config.includeCle) steps.push('CLE');
  if (config.includeSq) steps.push('SmoothQuant');
  if (config.includeBiasCorrection) steps.push('bias correction');
  if (config.includeFastFt) steps.push('fine-tuning');
  return steps;
}

/**
 * For each step `config` asks for that does not work inside bodies (not in BODY_STEPS), what it would have treated
 * inside the model's bodies; steps with nothing there are left out.
 */
export function untreatedBodyLayers(model: ModelProto, config: QuantConfig): UntreatedBodyLayers[] {
  const steps = askedSteps(config).filter((s) => !BODY_STEPS.has(s));
  if (steps.length === 0) return [];
  const bodies = scopedBodies(model);
  if (bodies.length === 0) return [];
  const found = new Map<RecoveryStep, string[]>(steps.map((s) => [s, []]));
  for (const b of bodies) {
    const id = (i: number) => `${b.prefix}${b.index.ids[i]}`;
    if (found.has('SmoothQuant'))
      found.get('SmoothQuant')!.push(...smoothQuantCandidates({ ...model, graph: b.view }).map((c) => c.tensor));
    const linear = found.has('bias correction') || found.has('fine-tuning') ? linearLayerNodes(b.index).map(id) : [];
    found.get('bias correction')?.push(...linear);
    found.get('fine-tuning')?.push(...linear);
  }
  return steps
    .map((step) => ({
      step,
      unit: step === 'SmoothQuant' ? ('activations' as const) : ('layers' as const),
      ids: found.get(step)!,
    }))
    .filter((u) => u.ids.length > 0);
}

/**
 * The warning that counts them, or undefined when every step treated what it found: "recovery steps left inside
 * control flow: bias correction 4 layers, fine-tuning 4 layers inside If/Loop/Scan bodies (…) …".
 */
export function bodyRecoveryWarning(
  untreated: readonly UntreatedBodyLayers[],
  bodiesQuantized: boolean,
): string | undefined {
  if (untreated.length === 0) return undefined;
  const counts = untreated.map(
    (u) => `${u.step} ${u.ids.length} ${u.ids.length === 1 ? u.unit.replace(/s$/, '') : u.unit}`,
  );
  const examples = [...new Set(untreated.flatMap((u) => u.ids))].slice(0, 3);
  const more = new Set(untreated.flatMap((u) => u.ids)).size > examples.length ? ', …' : '';
  const steps = untreated.map((u) => u.step).join(', ');
  return (
    `recovery steps left inside control flow: ${counts.join(', ')} inside If/Loop/Scan bodies (${examples.join(', ')}${more}) ` +
    `were not treated: ${steps} ${untreated.length === 1 ? 'works' : 'work'} on the main graph only, and the bodies are ` +
    (bodiesQuantized ? 'quantized without them' : 'left float (EnableSubgraph is off)')
  );
}
