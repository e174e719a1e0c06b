/**
 * `--judge-optimization basic|all`, shared by `qstudio ladder` and `qstudio quantize --mixed-precision`: the
 * onnxruntime graph optimization level their measurements run at (core/evaluate/graphOptimization.ts). Absent:
 * 'basic', the figure the studio shows.
 */
import { DEFAULT_GRAPH_OPTIMIZATION, GRAPH_OPTIMIZATIONS, isGraphOptimization, type GraphOptimization } from '../core/evaluate/graphOptimization.ts';
import { UsageError } from './usage.ts';

export function judgeOptimizationArgument(text: string | undefined): GraphOptimization {
  if (text === undefined) return DEFAULT_GRAPH_OPTIMIZATION;
  if (!isGraphOptimization(text)) throw new UsageError(`--judge-optimization "${text}": give one of ${GRAPH_OPTIMIZATIONS.join(', ')}`);
  return text;
}
