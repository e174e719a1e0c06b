/**
 * Small builders the adapters share: helper nodes that are valid at the target opset, and the
 * Unsqueeze whose axes moved from an attribute to an input at opset 13.
 */
import type { AttributeProto, NodeProto } from '../../onnx/index.ts';
import { makeNode } from '../../onnx/index.ts';
import { intsAttribute } from '../attributes.ts';
import type { AdapterContext } from './types.ts';

/** A default-domain helper node for `ctx.original`, named after it when it has a name. */
export function helperNode(
  ctx: AdapterContext,
  opType: string,
  inputs: string[],
  outputs: string[],
  attributes: AttributeProto[] = [],
): NodeProto {
  const name = ctx.original.name ? ctx.freshName(`${ctx.original.name}/${opType}`) : '';
  return makeNode(opType, inputs, outputs, name, attributes);
}

/** Unsqueeze(`input`, axes) as the target opset spells it (axes an attribute before 13, an input from 13). */
export function unsqueezeNode(ctx: AdapterContext, input: string, axes: number[], output: string): NodeProto {
  if (ctx.targetOpset >= 13) return helperNode(ctx, 'Unsqueeze', [input, ctx.int64s(`${output}_axes`, axes)], [output]);
  return helperNode(ctx, 'Unsqueeze', [input], [output], [intsAttribute('axes', axes)]);
}
