/**
 * The worker's Runtime (onnxruntime-web, or onnxruntime-node in tests) as the ComparisonRuntime that
 * core/evaluate/compareModels drives: sessions over model bytes that run decoded samples by index.
 *
 * Both models run on the same backend (the page asks for WASM): the comparison must measure the
 * quantization, not the difference between WebGPU and CPU kernels (docs/NOTES.md: the CPU backend is the
 * reference for quantized numerics), at the graph optimization level asked for ('basic' unless told: the model's
 * own Q/DQ arithmetic; 'all': onnxruntime-web's default, Q/DQ fused into int8 kernels). Cancellation is checked before every run, the
 * thread having taken its messages first (letMessagesIn: WASM runs resolve as microtasks, so a Cancel sent meanwhile
 * would wait for the whole rung), so a cancel takes effect within one inference. Must not decode images.
 */
import type { ComparisonRuntime, SampleSession } from '../../src/core/evaluate/compareModels.ts';
import type { BackendInfo, Feed, Runtime } from '../../src/core/runtime/session.ts';
import type { GraphOptimization } from '../../src/core/runtime/graphOptimization.ts';
import { letMessagesIn } from '../../src/core/runtime/letMessagesIn.ts';

export interface WorkerComparisonRuntime extends ComparisonRuntime {
  /** The backend of the last session opened (null before the first). */
  backend(): BackendInfo | null;
}

export function comparisonRuntime(
  runtime: Runtime,
  feeds: readonly Readonly<Record<string, Feed>>[],
  checkCancelled: () => void,
  graphOptimization: GraphOptimization = 'basic',
): WorkerComparisonRuntime {
  let backend: BackendInfo | null = null;
  return {
    samples: feeds.length,
    graphOptimization,
    backend: () => backend,
    async open(bytes): Promise<SampleSession> {
      await letMessagesIn();
      checkCancelled();
      // 'quantized': both models on the CPU backend, the reference for quantized numerics.
      const session = await runtime.createSession(bytes, 'quantized', undefined, graphOptimization);
      backend = session.backend;
      return {
        async run(sample, outputs) {
          await letMessagesIn();
          checkCancelled();
          return session.runner.run(feeds[sample], outputs);
        },
        async runFeeds(given, outputs) {
          await letMessagesIn();
          checkCancelled();
          // Kept tensors come back from this same runner, so they are its own feed types.
          return session.runner.run(given as Readonly<Record<string, Feed>>, outputs);
        },
        release: () => session.runner.release(),
      };
    },
    feeds: (sample) => feeds[sample],
  };
}
