/**
 * Upsample and Resize across their versions: Upsample-9 takes `scales` as an input, Upsample was replaced
 * at 10 by Resize-10 (same inputs, same text: "output_dimension = floor(input_dimension * scale)"), and
 * Resize-11 added coordinate_transformation_mode and nearest_mode, whose defaults (half_pixel,
 * round_prefer_floor) are NOT what Resize-10 computed. ONNX's own version converter keeps those defaults and
 * so changes results; this adapter writes out the old behaviour instead.
 *
 * What Resize-10 computed is defined by its reference runtime, onnxruntime (UpsampleBase: before opset 11 the
 * only transformation is "asymmetric", x_original = x_resized / scale, and a nearest pixel is the truncation
 * of x_original when upsampling and its ceiling when downsampling). In Resize-11 terms that is
 * coordinate_transformation_mode = asymmetric with nearest_mode = floor (every scale ≥ 1) or ceil (every
 * scale ≤ 1); a 'nearest' Resize-10 whose scales mix both, or are not constant, is refused. Upsample only
 * allows scales ≥ 1, so an Upsample is always 'floor'.
 */
import type { NodeProto } from '../../onnx/index.ts';
import { DataType, readTensorAsFloat32 } from '../../onnx/index.ts';
import { attributesWithout, editNode, floatsOf, stringAttribute, stringOf } from '../attributes.ts';
import type { Adapter, AdapterContext } from './types.ts';

/** Upsample-9: the `scales` attribute becomes a float input. */
export const upsampleScalesToInput: Adapter = (node, ctx) => {
  const scales = floatsOf(node, 'scales');
  if (!scales) return ctx.refuse('Upsample-7 without scales has no defined result');
  const input = ctx.constant(`${node.output[0]}_scales`, DataType.FLOAT, [scales.length], Float32Array.from(scales));
  return editNode(node, { input: [node.input[0], input], attribute: attributesWithout(node, 'scales') });
};

/** Upsample-10 is deprecated: Resize-10 with the same inputs and mode computes the same. */
export const upsampleToResize: Adapter = (node) => editNode(node, { op_type: 'Resize' });

/** Resize-11: the roi input is inserted and the transformation Resize-10 used is written out. */
export const resize10To11: Adapter = (node, ctx) => {
  const mode = stringOf(node, 'mode') ?? 'nearest';
  const written = [stringAttribute('coordinate_transformation_mode', 'asymmetric')];
  if (mode === 'nearest') written.push(stringAttribute('nearest_mode', nearestMode(node, ctx)));
  const attribute = [...attributesWithout(node, 'coordinate_transformation_mode', 'nearest_mode'), ...written];
  // roi only matters for tf_crop_and_resize; it is a required input at 11–12 and optional from 13.
  const roi =
    ctx.targetOpset >= 13 ? '' : ctx.constant(`${node.output[0]}_roi`, DataType.FLOAT, [0], new Float32Array(0));
  return editNode(node, { input: [node.input[0], roi, node.input[1]], attribute });
};

function nearestMode(node: NodeProto, ctx: AdapterContext): 'floor' | 'ceil' {
  if (ctx.original.op_type === 'Upsample') return 'floor';
  const weight = ctx.facts.constant(node.input[1]);
  if (!weight)
    return ctx.refuse(
      'nearest Resize-10 with computed scales: its rounding (floor when upsampling, ceil when downsampling) cannot be fixed in advance',
    );
  const scales = readTensorAsFloat32(weight);
  const up = scales.some((s) => s > 1);
  const down = scales.some((s) => s < 1);
  if (up && down)
    return ctx.refuse(
      'nearest Resize-10 that upsamples some axes and downsamples others has no single Resize-11 nearest_mode',
    );
  return down ? 'ceil' : 'floor';
}

/** Resize-13 removed the tf_half_pixel_for_nn transformation; everything else reads the same. */
export const resize13: Adapter = (node, ctx) => {
  if (stringOf(node, 'coordinate_transformation_mode') === 'tf_half_pixel_for_nn') {
    return ctx.refuse('coordinate_transformation_mode tf_half_pixel_for_nn no longer exists from opset 13');
  }
  return node;
};
