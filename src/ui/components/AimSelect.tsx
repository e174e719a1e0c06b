/**
 * Which onnxruntime level a search or the ladder aims at: onnxruntime-web's default options (WASM, graph optimization
 * 'all', Q/DQ fused into int8 kernels: what a user's session computes; the default) or the model's own Q/DQ
 * arithmetic ('basic'). One control for every search on the page, so they say it the same way.
 */
import type { GraphOptimization } from '../../core/runtime/graphOptimization.ts';

export const AIM_TEXT: Record<GraphOptimization, string> = {
  all: "onnxruntime-web's default (WASM, 'all')",
  basic: "the model's own Q/DQ arithmetic ('basic')",
};

export function AimSelect({
  value,
  onChange,
  disabled,
  testId,
}: {
  value: GraphOptimization;
  onChange: (aim: GraphOptimization) => void;
  disabled?: boolean;
  testId: string;
}) {
  return (
    <label
      className="field field--inline"
      title="The onnxruntime level the target is judged at. onnxruntime-web's default options fuse Q/DQ into int8 kernels, which can give another figure than the model's own Q/DQ arithmetic"
    >
      <span className="field__label">Aim at</span>
      <select
        className="select"
        value={value}
        disabled={disabled}
        onChange={(e) => onChange(e.currentTarget.value as GraphOptimization)}
        data-testid={testId}
      >
        <option value="all">{AIM_TEXT.all}</option>
        <option value="basic">{AIM_TEXT.basic}</option>
      </select>
    </label>
  );
}
