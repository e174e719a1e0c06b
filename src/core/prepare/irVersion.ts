/**
 * The IR version an ai.onnx opset needs. Each ONNX release pairs an IR version with the opset it
 * introduced (docs/Versioning.md, "Released Versions"); a model that imports opset N must declare at least
 * the IR version of the release that introduced N, or checkers and runtimes refuse it. Every IR version
 * only added to the format (initializers need not be inputs from 4, sparse tensors at 6, training info at 7,
 * functions, int4 at 10, …), so raising it never changes what a model computes.
 */

/** [first opset of a release line, IR version of that release] from Versioning.md, ascending. */
const OPSET_IR: readonly (readonly [number, number])[] = [
  [1, 3], // ONNX 1.0–1.3: opsets 1–8
  [9, 4], // 1.4.1
  [10, 5], // 1.5.0
  [11, 6], // 1.6.0
  [12, 7], // 1.7.0–1.9.0: opsets 12–14
  [15, 8], // 1.10.0–1.13.1: opsets 15–18
  [19, 9], // 1.14.0–1.15.0: opsets 19–20
  [21, 10], // 1.16.x–1.17.0: opsets 21–22
  [23, 11], // 1.18.0
  [24, 12], // 1.19.x
  [25, 13], // 1.20.0–1.22.0: opsets 25–27
];

/** The lowest IR version that may import ai.onnx `opset`. */
export function minIrVersionForOpset(opset: number): number {
  let ir = 3;
  for (const [first, version] of OPSET_IR) if (opset >= first) ir = version;
  return ir;
}
