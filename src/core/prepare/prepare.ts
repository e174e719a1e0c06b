/**
 * Graph preparation before quantization, in a fixed order: Constant nodes → initializers, initializers out
 * of graph.input, BatchNormalization folded into convolutions, then (when asked) the ai.onnx opset raised.
 * Each step leaves the float model's outputs unchanged (folding up to float rounding) and returns a new
 * model; the input model is never modified. The node-origin records of the steps are composed, so the
 * result maps every node of the prepared model to the user's node (see nodeOrigin.ts), and the list of what
 * was done goes to the quantization report.
 */
import type { ModelProto } from '../onnx/index.ts';
import { opsetOf } from '../onnx/index.ts';
import { constantsToInitializers } from './constantsToInitializers.ts';
import { foldBatchNorm } from './foldBatchNorm.ts';
import { foldConvAffine } from './foldConvAffine.ts';
import { composeOrigins, type NodeOrigin } from './nodeOrigin.ts';
import { removeInitializerInputs } from './removeInitializerInputs.ts';
import { upgradeOpset, type OpsetChange } from './upgradeOpset.ts';

export interface PrepareOptions {
  /** Raise the ai.onnx opset to this (13 for per-axis Q/DQ, 21 for 16-bit Q/DQ); absent: keep the model's. */
  readonly targetOpset?: number;
  /** Fold Conv/ConvTranspose → BatchNormalization pairs (default true). */
  readonly foldBatchNorm?: boolean;
  /** Fold Conv → Mul/Add by per-channel constants (ONNX Runtime's ConvMulFusion/ConvAddFusion; default true). */
  readonly foldConvAffine?: boolean;
}

/** What preparation did, as data (for the report) and as sentences. */
export interface PrepareSummary {
  readonly constantsMoved: number;
  readonly initializerInputsRemoved: number;
  /** BatchNormalization nodes folded, by the op they were folded into. */
  readonly batchNormsFolded: Readonly<Record<string, number>>;
  /** Mul/Add nodes by constants folded into the convolution before them. */
  readonly affineFolded: number;
  readonly opset: { readonly from: number | undefined; readonly to: number | undefined };
  readonly irVersion: { readonly from: number; readonly to: number };
  readonly opsetChanges: readonly OpsetChange[];
  /** One sentence per step that changed something, e.g. "folded 35 BatchNormalization into Conv". */
  readonly actions: readonly string[];
}

export interface PrepareResult {
  readonly model: ModelProto;
  /** Every node of `model` → the node of the input model it comes from (see nodeOrigin.ts). */
  readonly origin: NodeOrigin;
  readonly summary: PrepareSummary;
}

/** Runs the preparation steps on `model`; throws OpsetUpgradeError (an UnsupportedModelError) when the opset cannot be raised faithfully. */
export function prepare(model: ModelProto, options: PrepareOptions = {}): PrepareResult {
  const actions: string[] = [];
  const irBefore = Number(model.ir_version ?? 0);
  const opsetBefore = opsetOf(model, '');

  const constants = constantsToInitializers(model);
  if (constants.converted > 0)
    actions.push(`moved ${constants.converted} Constant node${plural(constants.converted)} to initializers`);

  const inputs = removeInitializerInputs(constants.model);
  let origin = composeOrigins(constants.origin, inputs.origin);
  if (inputs.removed > 0)
    actions.push(`removed ${inputs.removed} initializer${plural(inputs.removed)} from the graph inputs`);

  let current = inputs.model;
  let folded: Readonly<Record<string, number>> = {};
  if (options.foldBatchNorm !== false) {
    const fold = foldBatchNorm(current);
    origin = composeOrigins(origin, fold.origin);
    current = fold.model;
    folded = fold.folded;
    for (const [op, n] of Object.entries(folded)) actions.push(`folded ${n} BatchNormalization into ${op}`);
  }
  let affineFolded = 0;
  if (options.foldConvAffine !== false) {
    const fold = foldConvAffine(current);
    origin = composeOrigins(origin, fold.origin);
    current = fold.model;
    affineFolded = fold.folded;
    if (affineFolded > 0) actions.push(`folded ${affineFolded} Mul/Add by constant${plural(affineFolded)} into Conv`);
  }

  let opsetChanges: readonly OpsetChange[] = [];
  let opsetAfter = opsetBefore;
  if (options.targetOpset !== undefined) {
    const upgrade = upgradeOpset(current, options.targetOpset);
    origin = composeOrigins(origin, upgrade.origin);
    current = upgrade.model;
    opsetChanges = upgrade.changes;
    opsetAfter = upgrade.toOpset;
    if (upgrade.toOpset !== upgrade.fromOpset) {
      const details = upgrade.changes.map((c) => `${c.opType} ×${c.count} ${c.action}`);
      details.push(`${upgrade.unchanged} node${plural(upgrade.unchanged)} unchanged`);
      actions.push(`raised opset ${upgrade.fromOpset} → ${upgrade.toOpset}: ${details.join(', ')}`);
    }
  }

  const irAfter = Number(current.ir_version ?? 0);
  if (irAfter !== irBefore) actions.push(`raised IR version ${irBefore} → ${irAfter}`);
  return {
    model: current,
    origin,
    summary: {
      constantsMoved: constants.converted,
      initializerInputsRemoved: inputs.removed,
      batchNormsFolded: folded,
      affineFolded,
      opset: { from: opsetBefore, to: opsetAfter },
      irVersion: { from: irBefore, to: irAfter },
      opsetChanges,
      actions,
    },
  };
}

function plural(n: number): string {
  return n === 1 ? '' : 's';
}
