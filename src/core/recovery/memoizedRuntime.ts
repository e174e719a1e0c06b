/**
 * The ladder judges every rung against the same float model on the same evaluation samples: without this, each
 * rung runs the float model on every sample again. A memoized runtime remembers what a model (known by its bytes)
 * returned for a sample and a list of outputs once that model is opened a second time (so one-off models, each
 * rung's quantized one, take no room), and answers the same question again without running it; anything else, or
 * an answer that does not fit the byte budget, runs as usual. Results are returned as the
 * runtime gave them, so callers must not write into them (none of core/evaluate does). Must not import a runtime.
 */
import type { ComparisonRuntime, RunTensor, SampleSession } from '../evaluate/compareModels.ts';
import { runTensorBytes } from '../runtime/session.ts';
import { asSessionModel, type ModelBytes } from '../onnx/externalize.ts';

/** FNV-1a over the bytes (sampled past 1 MiB: every 16th byte) with the length: tells models apart in practice. */
function fingerprint(bytes: Uint8Array): string {
  let h = 0x811c9dc5;
  const step = bytes.length > 2 ** 20 ? 16 : 1;
  for (let i = 0; i < bytes.length; i += step) h = Math.imul(h ^ bytes[i], 0x01000193);
  return `${bytes.length}:${(h >>> 0).toString(16)}`;
}

/** The fingerprint of a model with its external data files (a large model's protobuf alone holds no weights). */
function modelFingerprint(model: ModelBytes): string {
  const { bytes, externalData } = asSessionModel(model);
  return [fingerprint(bytes), ...externalData.map((f) => `${f.path}=${fingerprint(f.data)}`)].join('+');
}

function bytesOf(out: Readonly<Record<string, RunTensor>>): number {
  let n = 0;
  for (const t of Object.values(out)) n += runTensorBytes(t);
  return n;
}

/**
 * `runtime`, answering repeated runs of a model it has seen (same bytes, sample and outputs) from memory, up to
 * `budgetBytes` of remembered outputs. `hits` counts the runs it saved.
 */
export function memoizedRuntime(
  runtime: ComparisonRuntime,
  budgetBytes = 128 * 2 ** 20,
): ComparisonRuntime & { readonly hits: number } {
  const memory = new Map<string, Readonly<Record<string, RunTensor>>>();
  const opens = new Map<string, number>();
  let used = 0;
  let hits = 0;
  return {
    samples: runtime.samples,
    feeds: runtime.feeds ? (s) => runtime.feeds!(s) : undefined,
    graphOptimization: runtime.graphOptimization,
    get hits() {
      return hits;
    },
    async open(model: ModelBytes): Promise<SampleSession> {
      const id = modelFingerprint(model);
      opens.set(id, (opens.get(id) ?? 0) + 1);
      const remember = opens.get(id)! > 1;
      let session: SampleSession | undefined;
      const opened = async () => (session ??= await runtime.open(model));
      return {
        async run(sample, outputs) {
          const key = `${id}\u0000${sample}\u0000${outputs.join('\u0000')}`;
          const known = memory.get(key);
          if (known) {
            hits++;
            return known;
          }
          const out = await (await opened()).run(sample, outputs);
          const size = bytesOf(out);
          if (remember && used + size <= budgetBytes) {
            memory.set(key, out);
            used += size;
          }
          return out;
        },
        release: async () => {
          await session?.release();
        },
      };
    },
  };
}
