/**
 * Attributes that became inputs. From opset 10 on, ONNX moved constant-looking attributes to inputs so that
 * they can be computed: Slice-10 (starts/ends/axes), TopK-10 (k), Clip-11 (min/max), Pad-11 (pads, value),
 * Squeeze/Unsqueeze/ReduceSum-13 and the other Reduce ops at 18 (axes), Split-13 (split). In each case the
 * new input carries the same numbers with the same meaning, so the rewrite is a new weight plus the same
 * node without the attribute. Split-18 is here too: it requires `num_outputs` when the sizes are not given.
 */
import type { NodeProto } from '../../onnx/index.ts';
import { DataType } from '../../onnx/index.ts';
import {
  attributesWith,
  attributesWithout,
  editNode,
  findAttribute,
  floatOf,
  intAttribute,
  intOf,
  intsOf,
  stringOf,
} from '../attributes.ts';
import type { Adapter, AdapterContext } from './types.ts';

/** Inputs padded with '' up to `index`, then `name` at `index` (optional inputs are positional). */
function withInput(node: NodeProto, index: number, name: string): string[] {
  const inputs = [...node.input];
  while (inputs.length < index) inputs.push('');
  inputs[index] = name;
  return inputs;
}

/**
 * Slice-10: starts, ends and axes become int64 inputs 1–3 (steps, input 4, defaults to 1 as Slice-1 did).
 * INT64_MAX "to the end" arrives from the decoder as 2**63 and is saturated back (attributes.ts).
 */
export const sliceAttributesToInputs: Adapter = (node, ctx) => {
  const starts = intsOf(node, 'starts');
  const ends = intsOf(node, 'ends');
  if (!starts || !ends) return ctx.refuse('Slice-1 without starts/ends has no defined result');
  const axes = intsOf(node, 'axes');
  const out = node.output[0];
  const inputs = [node.input[0], ctx.int64s(`${out}_starts`, starts), ctx.int64s(`${out}_ends`, ends)];
  if (axes) inputs.push(ctx.int64s(`${out}_axes`, axes));
  return editNode(node, { input: inputs, attribute: attributesWithout(node, 'starts', 'ends', 'axes') });
};

/** TopK-10: `k` becomes input 1, "a 1-D tensor containing a single positive value". */
export const topKToInput: Adapter = (node, ctx) => {
  const k = intOf(node, 'k');
  if (k === undefined) return ctx.refuse('TopK-1 without k has no defined result');
  return editNode(node, {
    input: [node.input[0], ctx.int64s(`${node.output[0]}_k`, [k])],
    attribute: attributesWithout(node, 'k'),
  });
};

/**
 * `axes` becomes input 1 (Squeeze/Unsqueeze/ReduceSum at 13, other Reduce ops at 18). Without the attribute,
 * Squeeze removes every 1-dim and a Reduce op reduces every axis (noop_with_empty_axes defaults to 0), as
 * before; an empty list is treated as absent, which is what it meant for those ops.
 */
export const axesToInput: Adapter = (node, ctx) => {
  const axes = intsOf(node, 'axes');
  if (axes === undefined) return node;
  const rest = attributesWithout(node, 'axes');
  if (axes.length === 0) {
    if (node.op_type === 'Unsqueeze') return ctx.refuse('Unsqueeze with an empty axes list has no defined result');
    return editNode(node, { attribute: rest });
  }
  return editNode(node, { input: withInput(node, 1, ctx.int64s(`${node.output[0]}_axes`, axes)), attribute: rest });
};

/** Split-13: the `split` sizes become input 1. */
export const splitToInput: Adapter = (node, ctx) => {
  const split = intsOf(node, 'split');
  if (split === undefined) return node;
  const rest = attributesWithout(node, 'split');
  if (split.length === 0) return editNode(node, { attribute: rest });
  return editNode(node, { input: withInput(node, 1, ctx.int64s(`${node.output[0]}_split`, split)), attribute: rest });
};

/**
 * Split-18: without sizes, `num_outputs` must be given. Equal parts (the only form Split-13 accepted
 * without sizes) are what num_outputs = number of outputs produces.
 */
export const splitNumOutputs: Adapter = (node) => {
  if (node.input[1] || findAttribute(node, 'num_outputs')) return node;
  return editNode(node, { attribute: attributesWith(node, intAttribute('num_outputs', node.output.length)) });
};

/** A scalar of the data's float type holding `value` (Clip-11 min/max, Pad-11 constant_value). */
function scalarLike(ctx: AdapterContext, data: string, hint: string, value: number, what: string): string {
  const type = ctx.facts.elemType(data);
  if (type === DataType.FLOAT) return ctx.constant(hint, DataType.FLOAT, [], Float32Array.of(value));
  if (type === DataType.DOUBLE) return ctx.constant(hint, DataType.DOUBLE, [], Float64Array.of(value));
  return ctx.refuse(
    type === undefined
      ? `the ${what} must become a tensor of the input's type, which the file does not state`
      : `the ${what} must become a tensor of the input's type (code ${type}), which is not float32 or float64`,
  );
}

/** Clip-11: `min`/`max` become optional scalar inputs 1 and 2 (absent: lowest/highest, as the defaults were). */
export const clipToInputs: Adapter = (node, ctx) => {
  const min = floatOf(node, 'min');
  const max = floatOf(node, 'max');
  const rest = attributesWithout(node, 'min', 'max', 'consumed_inputs');
  const out = node.output[0];
  const inputs = [node.input[0]];
  if (min !== undefined) inputs[1] = scalarLike(ctx, node.input[0], `${out}_min`, min, 'Clip min');
  if (max !== undefined) {
    inputs[1] ??= '';
    inputs[2] = scalarLike(ctx, node.input[0], `${out}_max`, max, 'Clip max');
  }
  return editNode(node, { input: inputs, attribute: rest });
};

/**
 * Pad-11: `pads` becomes an int64 input, `value` an optional scalar input of the data's type (left out when
 * 0, its default, or when the mode is not 'constant'); `mode` stays.
 */
export const padToInputs: Adapter = (node, ctx) => {
  const pads = intsOf(node, 'pads');
  if (!pads) return ctx.refuse('Pad-2 without pads has no defined result');
  const mode = stringOf(node, 'mode') ?? 'constant';
  const value = floatOf(node, 'value') ?? 0;
  const out = node.output[0];
  const inputs = [node.input[0], ctx.int64s(`${out}_pads`, pads)];
  if (mode === 'constant' && !Object.is(value, 0))
    inputs.push(scalarLike(ctx, node.input[0], `${out}_value`, value, 'Pad value'));
  return editNode(node, { input: inputs, attribute: attributesWithout(node, 'pads', 'value') });
};
