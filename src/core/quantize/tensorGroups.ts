/**
 * Tensors that must share one scale and zero point: a data-movement op's input and output (same
 * values, same grid), and a Concat's inputs and output under AlignConcat. A small union-find whose
 * groups take the union of their members' calibrated ranges.
 */

export class TensorGroups {
  private readonly parent = new Map<string, string>();

  add(name: string): void {
    if (!this.parent.has(name)) this.parent.set(name, name);
  }

  find(name: string): string {
    let root = name;
    while (this.parent.get(root) !== root) root = this.parent.get(root)!;
    // Path compression.
    for (let n = name; n !== root;) {
      const next = this.parent.get(n)!;
      this.parent.set(n, root);
      n = next;
    }
    return root;
  }

  union(a: string, b: string): void {
    const ra = this.find(a);
    const rb = this.find(b);
    if (ra !== rb) this.parent.set(rb, ra);
  }

  /** Members of every group, keyed by the group's root. */
  groups(): Map<string, string[]> {
    const out = new Map<string, string[]>();
    for (const name of this.parent.keys()) {
      const root = this.find(name);
      const list = out.get(root);
      if (list) list.push(name);
      else out.set(root, [name]);
    }
    return out;
  }
}
