/**
 * `--judge-optimization basic|all`, shared by `qstudio ladder` and `qstudio quantize --mixed-precision`: the
 * onnxruntime graph optimization level their measurements run at (core/runtime/graphOptimization.ts). Absent:
 * 'all', onnxruntime's default options: the command line aims at the runtime a user deploys to (the page, whose
 * sessions set 'basic', keeps the core's DEFAULT_GRAPH_OPTIMIZATION).
 */
import { GRAPH_OPTIMIZATIONS, isGraphOptimization, type GraphOptimization } from '../core/runtime/graphOptimization.ts';

/** The level the command line's searches and ladder aim at unless told: onnxruntime's default. */
export const CLI_GRAPH_OPTIMIZATION: GraphOptimization = 'all';
import { UsageError } from './usage.ts';

export function judgeOptimizationArgument(text: string | undefined): GraphOptimization {
  if (text === undefined) return CLI_GRAPH_OPTIMIZATION;
  if (!isGraphOptimization(text))
    throw new UsageError(`--judge-optimization "${text}": give one of ${GRAPH_OPTIMIZATIONS.join(', ')}`);
  return text;
}
