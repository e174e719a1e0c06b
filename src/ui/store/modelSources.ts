/**
 * What the user gives the studio, turned into ModelSources: dropped or picked files, or the sample
 * model's URL. Among several files the one .onnx file is the model and the others are its external
 * data, passed by name (the name the model's tensors refer to).
 *
 * Problems with the choice itself (no .onnx among many files, two models at once, a sample that does
 * not download) become named errors thrown by read(), so they reach the page like a bad model does.
 */
import { StudioError } from '../../core/onnx/errors.ts';
import type { ModelBytes, ModelSource } from './modelSlice.ts';
import { PAGE_MODEL_LIMIT_BYTES, WASM_HEAP_LIMIT_BYTES, sessionHeapBytes } from '../../core/runtime/wasmHeap.ts';

/** Several files were given and none of them is an .onnx model. */
export class NoModelFileError extends StudioError {
  override readonly name = 'NoModelFileError';
}

/** More than one .onnx file was given at once. */
export class MultipleModelsError extends StudioError {
  override readonly name = 'MultipleModelsError';
}

/** The sample model could not be downloaded from this site. */
export class SampleUnavailableError extends StudioError {
  override readonly name = 'SampleUnavailableError';
}

/** The model and its data files are more than the page's WebAssembly memory can hold. */
export class ModelTooLargeError extends StudioError {
  override readonly name = 'ModelTooLargeError';
}

/**
 * Most bytes (model file and external data together) the page accepts: the largest model whose
 * onnxruntime-web session fits the 4 GiB WebAssembly ceiling with room for a run's activations, from the
 * heap measured against model size (core/runtime/wasmHeap.ts). Larger models go to the CLI.
 */
export { PAGE_MODEL_LIMIT_BYTES };

const gib = (bytes: number) => `${(bytes / 2 ** 30).toFixed(2)} GiB`;

/** The sample model, served by vite/sampleModelPlugin.ts. */
export const SAMPLE_MODEL = {
  url: `${import.meta.env.BASE_URL}samples/ppocr-det.onnx`,
  fileName: 'ppocr-det.onnx',
  label: 'PP-OCRv4 text detector',
};

const isOnnx = (name: string) => /\.onnx$/i.test(name);

function failing(fileName: string, error: Error): ModelSource {
  return { fileName, byteLength: null, read: () => Promise.reject(error) };
}

/** The source for a set of files; null when there are none (a drag of text, a cancelled picker). */
export function sourceFromFiles(files: readonly File[]): ModelSource | null {
  if (files.length === 0) return null;
  const models = files.filter((f) => isOnnx(f.name));
  const names = files.map((f) => f.name).join(', ');
  if (models.length > 1) {
    return failing(
      names,
      new MultipleModelsError(
        `${models.length} .onnx files were given at once (${models.map((f) => f.name).join(', ')}): open one model at a time, together with its external data files if it has any`,
      ),
    );
  }
  if (models.length === 0 && files.length > 1) {
    return failing(names, new NoModelFileError(`None of the ${files.length} files given (${names}) is an .onnx model`));
  }
  // One file without the .onnx extension is still tried: the decoder says what it really is.
  const model = models[0] ?? files[0];
  const external = files.filter((f) => f !== model);
  const total = files.reduce((sum, f) => sum + f.size, 0);
  if (total > PAGE_MODEL_LIMIT_BYTES) {
    // Refused before a byte is read: reading it would crash the tab, or onnxruntime-web would fail deep inside.
    return failing(
      model.name,
      new ModelTooLargeError(
        `"${model.name}" is ${gib(total)} with its data files; onnxruntime-web would need about ${gib(sessionHeapBytes(total))} of WebAssembly memory for it, and the page has ${gib(WASM_HEAP_LIMIT_BYTES)} (models up to ${gib(PAGE_MODEL_LIMIT_BYTES)} fit): quantize it with the command line (npx qstudio quantize), which has no such ceiling`,
      ),
    );
  }
  return {
    fileName: model.name,
    byteLength: model.size,
    async read(): Promise<ModelBytes> {
      // Only the .onnx is read here (a protobuf: under 2 GiB); the data files stay Files, read by the workers.
      return { bytes: await model.arrayBuffer(), externalFiles: Object.fromEntries(external.map((f) => [f.name, f])) };
    },
  };
}

/** The source for a model on this site (the sample). */
export function sourceFromUrl(url: string, fileName: string): ModelSource {
  return {
    fileName,
    byteLength: null,
    async read(): Promise<ModelBytes> {
      let response: Response;
      try {
        response = await fetch(url);
      } catch (e) {
        throw new SampleUnavailableError(
          `"${fileName}" could not be downloaded from ${url}: ${e instanceof Error ? e.message : String(e)}`,
        );
      }
      if (!response.ok)
        throw new SampleUnavailableError(`"${fileName}" could not be downloaded from ${url} (HTTP ${response.status})`);
      return { bytes: await response.arrayBuffer(), externalFiles: {} };
    },
  };
}
