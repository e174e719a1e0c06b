/**
 * The layers inside If/Loop/Scan bodies that a recovery step asked for would have treated in the main graph, and did
 * not: SmoothQuant's smoothed activations, and the Conv/Gemm/MatMul layers bias correction and fine-tuning leave there
 * (in Loop/Scan bodies, or without a bias). CLE equalizes body pairs like the main graph's
 * (treatsBodyLayer). A model such as Silero VAD keeps all its compute inside one If: a step that sees only the main
 * graph there does nothing, and the run must say so by count (bodyRecoveryWarning) rather than report "0 layers".
 * Bodies are seen as the quantizer sees them (quantize/bodyViews.ts). Pure: reads the model, changes nothing.
 */
import type { ModelProto } from '../onnx/model.ts';
import type { QuantConfig } from '../quantize/config.ts';
import { isIfBranch, scopedBodies, type ScopedBody } from '../quantize/bodyViews.ts';
import { linearLayerNodes } from './linearLayers.ts';
import { smoothQuantCandidates } from './smoothQuant.ts';

export type RecoveryStep = 'CLE' | 'SmoothQuant' | 'bias correction' | 'fine-tuning';

/**
 * Whether a step works on a layer inside a body: CLE on every pair; fine-tuning on the Conv/Gemm/MatMul layers of If
 * branches (at any depth of If), bias correction on those of them that have a bias; SmoothQuant on none.
 */
export function treatsBodyLayer(step: RecoveryStep, body: ScopedBody, node: number): boolean {
  if (step === 'CLE') return true;
  // Bias correction and fine-tuning take the layers of If branches (findLinearLayers with bodies); bias correction
  // only those that have a bias.
  const inBranch = isIfBranch(body);
  if (step === 'fine-tuning') return inBranch;
  if (step === 'bias correction') return inBranch && !!body.index.nodes[node].input[2];
  return false;
}

/** Why a step leaves a body layer as it is (treatsBodyLayer). */
const UNTREATED_WHY: Record<RecoveryStep, string> = {
  CLE: '',
  SmoothQuant: 'works on the main graph only',
  'bias correction': 'adds no bias inside a body and does not enter Loop/Scan bodies',
  'fine-tuning': 'does not enter Loop/Scan bodies',
};

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
 * For each step `config` asks for, what it would have treated inside the model's bodies and does not there
 * (treatsBodyLayer); steps with nothing left are left out.
 */
export function untreatedBodyLayers(model: ModelProto, config: QuantConfig): UntreatedBodyLayers[] {
  const steps = askedSteps(config).filter((s) => s !== 'CLE');
  if (steps.length === 0) return [];
  const bodies = scopedBodies(model);
  if (bodies.length === 0) return [];
  const found = new Map<RecoveryStep, string[]>(steps.map((s) => [s, []]));
  for (const b of bodies) {
    const id = (i: number) => `${b.prefix}${b.index.ids[i]}`;
    if (found.has('SmoothQuant'))
      found.get('SmoothQuant')!.push(...smoothQuantCandidates({ ...model, graph: b.view }).map((c) => c.tensor));
    const linear = found.has('bias correction') || found.has('fine-tuning') ? linearLayerNodes(b.index) : [];
    for (const step of ['bias correction', 'fine-tuning'] as const)
      found.get(step)?.push(...linear.filter((i) => !treatsBodyLayer(step, b, i)).map(id));
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
  const why = untreated.map((u) => `${u.step} ${UNTREATED_WHY[u.step]}`).join('; ');
  const counts = untreated.map(
    (u) => `${u.step} ${u.ids.length} ${u.ids.length === 1 ? u.unit.replace(/s$/, '') : u.unit}`,
  );
  const ids = [...new Set(untreated.flatMap((u) => u.ids))];
  const examples = ids.slice(0, 3);
  const more = ids.length > examples.length ? ', …' : '';
  return (
    `recovery steps left inside control flow: ${counts.join(', ')} inside If/Loop/Scan bodies (${examples.join(', ')}${more}) ` +
    `were not treated (${why}); the bodies are ` +
    (bodiesQuantized ? 'quantized without them' : 'left float (EnableSubgraph is off)')
  );
}
