/**
 * The contract between the opset-upgrade driver (upgradeOpset.ts) and the per-op adapters: what an adapter
 * receives, what it may ask, and what it returns. An adapter rewrites one node across one version boundary
 * so that the node computes exactly what it computed before; it never edits its input node (it returns a
 * copy) and never touches the graph itself: new weights and helper nodes go through the context and the
 * return value, and the driver places them.
 */
import type { NodeProto } from '../../onnx/index.ts';
import type { TensorArray } from '../../onnx/index.ts';
import type { ValueFacts } from '../valueFacts.ts';

export interface AdapterContext {
  /** The opset the model is being raised to: helper nodes must be valid at this opset. */
  readonly targetOpset: number;
  /** The node as it was in the input model (before any step). */
  readonly original: NodeProto;
  /** What the file states about tensors visible from the node's graph. */
  readonly facts: ValueFacts;
  /** A new weight (an initializer, or a Constant node inside a function) holding `data`; returns its name. */
  constant(hint: string, dataType: number, dims: readonly number[], data: TensorArray): string;
  /** A new 1-D int64 weight (values saturate to the int64 range); returns its name. */
  int64s(hint: string, values: readonly (number | bigint)[]): string;
  /** A tensor or node name unused anywhere in the model. */
  freshName(hint: string): string;
  /** How many nodes (outer-scope reads included) and graph outputs read a tensor of this graph. */
  readers(name: string): number;
  /** Records what the adapter did, for the report ('kept (last axis)'); replaces the step's own wording. */
  note(what: string): void;
  /** Refuses to upgrade this node: throws the UnsupportedModelError that names the node, op and versions. */
  refuse(reason: string): never;
}

/** A node rewritten with helper nodes placed before and after it (Shape/Flatten → Softmax → Reshape). */
export interface Rewrite {
  readonly before?: readonly NodeProto[];
  readonly node: NodeProto;
  readonly after?: readonly NodeProto[];
}

/** Rewrites `node` (at the version before the boundary) into nodes valid after it; returns `node` itself when nothing needs to change. */
export type Adapter = (node: NodeProto, ctx: AdapterContext) => NodeProto | Rewrite;

/**
 * What crossing one version boundary means for an op:
 * - same: nothing the model can observe changed (the `why` says what did: types added, attributes added
 *   with defaults equal to the old behaviour, documentation); `floatOnly` when types were removed and only
 *   float inputs are certain to remain valid.
 * - adapt: an adapter rewrites the node; `does` is the report's wording.
 * - refuse: no faithful rewrite is known; the upgrade stops with `why`.
 */
export type Step =
  | { readonly kind: 'same'; readonly why: string; readonly floatOnly?: boolean }
  | { readonly kind: 'adapt'; readonly why: string; readonly does: string; readonly adapt: Adapter }
  | { readonly kind: 'refuse'; readonly why: string };

export const same = (why: string, floatOnly = false): Step => ({ kind: 'same', why, floatOnly });
export const adapt = (adapter: Adapter, does: string, why: string): Step => ({
  kind: 'adapt',
  why,
  does,
  adapt: adapter,
});
export const refuse = (why: string): Step => ({ kind: 'refuse', why });
