/**
 * Plain words for the named errors a model open can end in: a title ("Truncated model") and a hint
 * on what to do next. The names come from the core (src/core/onnx/errors.ts), the file sources
 * (sources.ts) and the worker connection; the page shows the error's own message between the two.
 */
interface ErrorText {
  title: string;
  hint?: string;
}

const TEXTS: Record<string, ErrorText> = {
  EmptyFileError: { title: 'Empty file', hint: 'Check that the file finished downloading or saving, then try again.' },
  NotOnnxError: {
    title: 'Not an ONNX model',
    hint: 'Export the model to ONNX first (for example with torch.onnx.export or tf2onnx), then open the .onnx file.',
  },
  TruncatedModelError: {
    title: 'Truncated model',
    hint: 'Download or copy the model again, then open the complete file.',
  },
  InvalidModelError: {
    title: 'Invalid model',
    hint: 'The exporter wrote a model that breaks ONNX rules; re-export it, or check it with onnx.checker.',
  },
  ExternalDataError: {
    title: 'Missing external data',
    hint: 'Select or drop the .onnx file together with its data file(s), all at once.',
  },
  UnsupportedModelError: { title: 'Unsupported model' },
  NoModelFileError: { title: 'No ONNX model among the files', hint: 'Include the .onnx file in the selection.' },
  MultipleModelsError: { title: 'More than one model' },
  SampleUnavailableError: {
    title: 'Sample model unavailable',
    hint: 'The site was built without its sample model; open a model of your own.',
  },
  WorkerError: { title: 'The model worker stopped' },
  ModelTooLargeError: {
    title: 'Too large for the page',
    hint: 'Use the command line: npx qstudio quantize <model.onnx> --calib <dir> --config <preset> -o <out.onnx>.',
  },
};

/** The title shown for an error name; unknown names get a generic title. */
export function errorTitle(name: string): string {
  return TEXTS[name]?.title ?? 'Could not open the model';
}

/** What the user can do about an error, when there is something general to say. */
export function errorHint(name: string): string | undefined {
  return TEXTS[name]?.hint;
}
