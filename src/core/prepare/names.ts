/**
 * Fresh tensor and node names for what preparation adds (folded biases, int64 inputs that replace
 * attributes, Flatten/Reshape around a Softmax). ONNX names tensors once per model: a subgraph may read
 * its enclosing graphs' tensors and must not redefine them, so a new name has to be unused in every graph
 * of the model, not only in the one being edited.
 */
import type { GraphProto, ModelProto } from '../onnx/index.ts';
import { forEachGraph } from '../onnx/index.ts';

/** Hands out names not used anywhere in a model (nor handed out before). */
export class NameAllocator {
  private readonly used = new Set<string>();

  constructor(model?: ModelProto) {
    if (model?.graph) this.addGraph(model.graph);
    for (const f of model?.functions ?? []) {
      for (const n of f.node) {
        for (const t of [...n.input, ...n.output]) this.used.add(t);
        if (n.name) this.used.add(n.name);
      }
      for (const t of [...f.input, ...f.output]) this.used.add(t);
    }
  }

  /** Marks every name of a graph and its subgraphs as used. */
  addGraph(graph: GraphProto): void {
    forEachGraph(graph, (g) => {
      for (const v of [...g.input, ...g.output, ...g.value_info]) if (v.name) this.used.add(v.name);
      for (const t of g.initializer) if (t.name) this.used.add(t.name);
      for (const n of g.node) {
        for (const t of [...n.input, ...n.output]) if (t) this.used.add(t);
        if (n.name) this.used.add(n.name);
      }
    });
  }

  /** `hint` itself when free, else `hint_2`, `hint_3`, …; the name is reserved. */
  fresh(hint: string): string {
    let name = hint || 'tensor';
    for (let k = 2; this.used.has(name); k++) name = `${hint}_${k}`;
    this.used.add(name);
    return name;
  }
}
