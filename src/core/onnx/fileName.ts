/**
 * A model file's stem: its name without the ".onnx" extension (any case), the start of every file name the
 * studio and the CLI derive from a model (quantized models, reports, ranges, snippets). Pure.
 */

/** "m.onnx" → "m"; a name without the extension stays as it is. */
export const modelStem = (fileName: string): string => fileName.replace(/\.onnx$/i, '');
