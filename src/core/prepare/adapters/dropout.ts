/**
 * Dropout across its versions, for inference: at every version an inference run passes the data through
 * unchanged (Dropout-7 "the output Y will either be a random dropout, or a simple copy of the input";
 * Dropout-12 "If training_mode is false … the operation mimics inference mode"). What changed is the
 * attributes (is_test removed at 7, ratio moved to an input at 12, where it is ignored unless training) and
 * the mask output (type T until 10, bool after; "not filled" in test mode before 7). So the data output is
 * carried over as is, and a node whose mask output is read is refused.
 */
import type { NodeProto } from '../../onnx/index.ts';
import { attributesWithout, editNode } from '../attributes.ts';
import type { Adapter, AdapterContext } from './types.ts';

/** The mask output must be unread; an unread mask is dropped (its type changes across versions). */
function withoutMask(node: NodeProto, ctx: AdapterContext): NodeProto {
  const mask = node.output[1];
  if (!mask) return node;
  if (ctx.readers(mask) > 0)
    return ctx.refuse('the mask output is read, and its type and content changed across versions');
  return editNode(node, { output: [node.output[0]] });
}

/** Dropout-7: is_test removed (and consumed_inputs at 6); the data output is a copy in inference. */
export const dropoutAttributes: Adapter = (node, ctx) => {
  const unmasked = withoutMask(node, ctx);
  if (!unmasked.attribute.some((a) => a.name === 'is_test' || a.name === 'consumed_inputs' || a.name === 'ratio'))
    return unmasked;
  return editNode(unmasked, { attribute: attributesWithout(unmasked, 'is_test', 'consumed_inputs', 'ratio') });
};

/** Dropout at 10 and 13: only the mask's type changed. */
export const dropoutMask: Adapter = withoutMask;
