/**
 * Softmax, LogSoftmax and Hardmax at opset 13. Before 13 the input is coerced to 2-D at `axis` (default 1):
 * [a0·…·a(k−1), ak·…·a(n−1)], normalized along the second dimension, and reshaped back; from 13 the op
 * normalizes along the single dimension `axis` (default −1). The two agree when the old axis is the last
 * one (the flattened second dimension is then just that axis), which is how exporters usually write it.
 * Otherwise the old computation is spelled out: Flatten(axis) → op(axis = −1) → Reshape(Shape(x)), which
 * is exact for every input rank. The rank comes from the file (value_info, graph inputs/outputs); when it
 * is unknown the spelled-out form is used, since it is correct either way.
 */
import { attributesWith, editNode, intAttribute, intOf } from '../attributes.ts';
import { helperNode } from './build.ts';
import type { Adapter } from './types.ts';

export const coercedAxisToSingleAxis: Adapter = (node, ctx) => {
  const axis = intOf(node, 'axis') ?? 1;
  const x = node.input[0];
  const y = node.output[0];
  if (axis === -1) {
    ctx.note('kept (last axis)');
    return node;
  }
  const rank = ctx.facts.rank(x) ?? ctx.facts.rank(y);
  if (rank !== undefined && (axis + rank) % rank === rank - 1 && axis >= -rank && axis < rank) {
    ctx.note('kept (last axis)');
    // The default changed (1 → −1), so the axis is written out.
    return intOf(node, 'axis') === axis
      ? node
      : editNode(node, { attribute: attributesWith(node, intAttribute('axis', axis)) });
  }

  const shape = ctx.freshName(`${x}_shape`);
  const flat = ctx.freshName(`${x}_2d`);
  const normalized = ctx.freshName(`${y}_2d`);
  ctx.note(
    rank === undefined
      ? 'spelled out as Flatten → op → Reshape (rank unknown)'
      : `spelled out as Flatten → op → Reshape (axis ${axis} of rank ${rank})`,
  );
  return {
    before: [
      helperNode(ctx, 'Shape', [x], [shape]),
      helperNode(ctx, 'Flatten', [x], [flat], [intAttribute('axis', axis)]),
    ],
    node: editNode(node, {
      input: [flat],
      output: [normalized],
      attribute: attributesWith(node, intAttribute('axis', -1)),
    }),
    after: [helperNode(ctx, 'Reshape', [normalized, shape], [y])],
  };
};
