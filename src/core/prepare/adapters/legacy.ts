/**
 * Adapters for the changes of the early opsets (1–9): legacy attributes removed, implicit defaults made
 * explicit, the limited `broadcast`/`axis` broadcasting of opsets < 7 replaced by NumPy broadcasting, and a
 * few single-op fixes (Reshape-5, Cast-6, Selu-6, Gemm-7, BatchNormalization 6/7/9/14, Concat-4). Each
 * function cites the changelog entry it follows.
 */
import type { NodeProto } from '../../onnx/index.ts';
import { DataType, readTensor } from '../../onnx/index.ts';
import {
  attributesWith,
  attributesWithout,
  editNode,
  findAttribute,
  floatAttribute,
  intAttribute,
  intOf,
  intsOf,
  stringAttribute,
  stringOf,
} from '../attributes.ts';
import { unsqueezeNode } from './build.ts';
import type { Adapter, AdapterContext } from './types.ts';

/** Removes the named attributes when present (else the node is returned as is). */
export function dropAttributes(...names: string[]): Adapter {
  return (node) =>
    node.attribute.some((a) => names.includes(a.name ?? ''))
      ? editNode(node, { attribute: attributesWithout(node, ...names) })
      : node;
}

/** Opset 6 removed `consumed_inputs` ("legacy optimization attribute") from every op that had it. */
export const dropConsumedInputs = dropAttributes('consumed_inputs');

/**
 * Opset 7: binary ops lost `broadcast`/`axis` (limited, right-hand-side-only broadcasting) for NumPy
 * broadcasting. broadcast = 0 required equal shapes, where NumPy broadcasting is the identity. With
 * broadcast = 1 and no axis, B's shape is a suffix of A's (or B has one element), which NumPy's right
 * alignment reproduces. With an axis, B's dims sit at `axis` of A: B gets trailing 1-dims so that right
 * alignment puts them there (a reshaped copy when B is a weight, else an Unsqueeze), which needs both ranks.
 */
export const legacyBroadcast: Adapter = (node, ctx) => {
  const broadcast = intOf(node, 'broadcast') ?? 0;
  const axis = intOf(node, 'axis');
  if (!findAttribute(node, 'broadcast') && axis === undefined) return node;
  const plain = editNode(node, { attribute: attributesWithout(node, 'broadcast', 'axis') });
  if (broadcast === 0 || axis === undefined) return plain;

  const a = node.input[0];
  const b = node.input[1];
  const rankA = ctx.facts.rank(a);
  const weight = ctx.facts.constant(b);
  const rankB = weight ? weight.dims.length : ctx.facts.rank(b);
  if (rankA === undefined || rankB === undefined) {
    return ctx.refuse(`broadcast=1 with axis=${axis} needs the ranks of both inputs, which the file does not state`);
  }
  const start = axis < 0 ? axis + rankA : axis;
  const trailing = rankA - start - rankB;
  if (trailing < 0)
    return ctx.refuse(`broadcast axis ${axis} does not fit a rank-${rankB} operand into a rank-${rankA} one`);
  if (trailing === 0) return plain;
  if (weight) {
    const dims = [...weight.dims.map(Number), ...new Array<number>(trailing).fill(1)];
    const aligned = ctx.constant(`${b}_aligned`, weight.data_type ?? 0, dims, readTensor(weight));
    return editNode(plain, { input: [a, aligned, ...node.input.slice(2)] });
  }
  const unsqueezed = ctx.freshName(`${b}_aligned`);
  const axes = Array.from({ length: trailing }, (_, k) => rankB + k);
  return {
    before: [unsqueezeNode(ctx, b, axes, unsqueezed)],
    node: editNode(plain, { input: [a, unsqueezed, ...node.input.slice(2)] }),
  };
};

/** Concat-4 made `axis` required; Concat-1 defaulted it to 1 ("Which axis to concat on. Default value is 1."). */
export const concatAxisRequired: Adapter = (node) =>
  findAttribute(node, 'axis') ? node : editNode(node, { attribute: attributesWith(node, intAttribute('axis', 1)) });

/** Reshape-5 takes the target shape as an int64 input instead of the `shape` attribute (same 0 and -1 rules). */
export const reshapeShapeToInput: Adapter = (node, ctx) => {
  const shape = intsOf(node, 'shape');
  if (!shape) return ctx.refuse('Reshape-1 without a `shape` attribute has no defined result');
  const input = ctx.int64s(`${node.output[0]}_shape`, shape);
  return editNode(node, {
    input: [node.input[0], input],
    attribute: attributesWithout(node, 'shape', 'consumed_inputs'),
  });
};

/** Cast-6 names the target type by its TensorProto.DataType number instead of its name. */
export const castToEnum: Adapter = (node, ctx) => {
  const to = findAttribute(node, 'to');
  if (!to || !to.s) return node;
  const name = stringOf(node, 'to')!.toUpperCase();
  const code = (DataType as Record<string, number>)[name];
  if (code === undefined || code === 0)
    return ctx.refuse(`Cast-1 target type "${name}" is not a TensorProto.DataType name`);
  return editNode(node, { attribute: attributesWith(node, intAttribute('to', code)) });
};

/**
 * Selu-6 changed the default alpha and gamma (1.6732 → 1.67326319…, 1.0507 → 1.05070102…) and dropped
 * consumed_inputs: the old defaults are written out so the values stay.
 */
export const seluDefaults: Adapter = (node) => {
  let attribute = attributesWithout(node, 'consumed_inputs');
  if (!findAttribute(node, 'alpha')) attribute = [...attribute, floatAttribute('alpha', 1.6732)];
  if (!findAttribute(node, 'gamma')) attribute = [...attribute, floatAttribute('gamma', 1.0507)];
  return attribute.length === node.attribute.length && attribute.every((a, i) => a === node.attribute[i])
    ? node
    : editNode(node, { attribute });
};

/** Gemm-7 dropped `broadcast`: C is always unidirectionally broadcast to (M, N), which covers every shape broadcast=1 accepted and is the identity for broadcast=0's (M, N). */
export const gemmDropBroadcast = dropAttributes('broadcast');

/** BatchNormalization-6 dropped consumed_inputs; the node must be in inference form (one output). */
export const batchNorm6: Adapter = (node, ctx) => {
  requireInferenceForm(node, ctx);
  return dropConsumedInputs(node, ctx);
};

/** BatchNormalization-7 dropped `is_test`: a one-output node computes the inference form either way. */
export const batchNorm7: Adapter = (node, ctx) => {
  requireInferenceForm(node, ctx);
  return dropAttributes('is_test')(node, ctx);
};

/** BatchNormalization-9 dropped `spatial` (per-channel statistics became the only form). */
export const batchNorm9: Adapter = (node, ctx) => {
  if ((intOf(node, 'spatial') ?? 1) !== 1)
    return ctx.refuse('spatial=0 (per-activation statistics) has no equivalent from opset 9');
  return dropAttributes('spatial')(node, ctx);
};

/** BatchNormalization-14 added training_mode (default 0, inference); extra outputs are invalid in inference. */
export const batchNorm14: Adapter = (node, ctx) => {
  requireInferenceForm(node, ctx);
  return node;
};

function requireInferenceForm(node: NodeProto, ctx: AdapterContext): void {
  if (node.output.slice(1).some((o) => o))
    return ctx.refuse('BatchNormalization in training form (statistics outputs) cannot be carried over');
}

/** RoiAlign-16 added coordinate_transformation_mode, default half_pixel; 'output_half_pixel' is the old behaviour. */
export const roiAlignOutputHalfPixel: Adapter = (node) => {
  if (findAttribute(node, 'coordinate_transformation_mode')) return node;
  return editNode(node, {
    attribute: attributesWith(node, stringAttribute('coordinate_transformation_mode', 'output_half_pixel')),
  });
};

/** Scatter was deprecated at 11 for ScatterElements, "which provides the same functionality" (same inputs, axis). */
export const scatterToScatterElements: Adapter = (node) => editNode(node, { op_type: 'ScatterElements' });

/**
 * ConvTranspose-11 corrected how SAME_UPPER/SAME_LOWER split the padding (the -1 text had the condition
 * inverted); explicit pads and VALID mean the same at both versions.
 */
export const convTransposePadding: Adapter = (node, ctx) => {
  const autoPad = stringOf(node, 'auto_pad') ?? 'NOTSET';
  if (autoPad === 'SAME_UPPER' || autoPad === 'SAME_LOWER')
    return ctx.refuse(`auto_pad=${autoPad} splits padding differently from opset 11`);
  return node;
};
