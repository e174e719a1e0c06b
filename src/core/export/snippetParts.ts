/**
 * What the Quark and ONNX Runtime snippets share: the file names, the step that names the nodes the
 * way the studio does, and a CalibrationDataReader skeleton fed by a function the user fills in.
 * Text building only; the snippets' own modules decide what goes into each tool's call.
 */
import type { TensorSummary } from '../onnx/modelSummary.ts';
import { NAME_NODES, NAME_NODES_FUNCTION, snippetExclusions } from './snippetExclusions.ts';
import type { GraphIndex } from '../onnx/graphIndex.ts';
import { py, PyName, type PyValue } from './python.ts';
import type { ConfigQuantType, QuantConfig } from '../quantize/config.ts';
import { modelStem } from '../onnx/fileName.ts';

export interface SnippetOptions {
  /** The float model's file name, e.g. "yolox-nano.onnx". */
  modelFile: string;
  /** The model's graph inputs (the reader's skeleton feeds them). */
  inputs: readonly TensorSummary[];
  /** The configuration's name in the studio (a preset), for the header. */
  configName: string;
}

const NUMPY_DTYPES: Readonly<Record<string, string>> = {
  float32: 'np.float32',
  float16: 'np.float16',
  float64: 'np.float64',
  int64: 'np.int64',
  int32: 'np.int32',
  uint8: 'np.uint8',
  int8: 'np.int8',
  bool: 'np.bool_',
};

/** The file-name constants; NAMED_MODEL only when the nodes must be named first. */
export function fileConstants(o: SnippetOptions, suffix: string, naming: boolean): string {
  const stem = modelStem(o.modelFile);
  const lines = [`FLOAT_MODEL = ${py(o.modelFile)}`];
  if (naming)
    lines.push(`NAMED_MODEL = ${py(`${stem}.named.onnx`)}  # the float model with every node named as in Quant Studio`);
  lines.push(`QUANTIZED_MODEL = ${py(`${stem}.${suffix}.onnx`)}`);
  return lines.join('\n');
}

/** The reader skeleton: random samples of the right shapes until the user puts their own data in. */
export function readerSkeleton(o: SnippetOptions): string {
  const sample = o.inputs.map((t) => {
    const shape = (t.shape ?? [1]).map((d) => (typeof d === 'number' && d > 0 ? d : 1));
    const dtype = NUMPY_DTYPES[t.elemType] ?? 'np.float32';
    const make = dtype.startsWith('np.float')
      ? `rng.random(${py(shape)}).astype(${dtype})`
      : `np.zeros(${py(shape)}, dtype=${dtype})`;
    return `        ${py(t.name)}: ${make},`;
  });
  return `def load_samples():
    """One dict per calibration sample: graph input name -> array, preprocessed as the model expects.
    Replace the random arrays with your own data (dynamic dimensions are set to 1 here)."""
    rng = np.random.default_rng(0)
    return [{
${sample.join('\n')}
    } for _ in range(8)]


class SampleReader(CalibrationDataReader):
    """Hands the samples to the quantizer one at a time; rewind() starts them over for another pass."""

    def __init__(self, samples):
        self.samples = samples
        self.position = 0

    def get_next(self):
        if self.position >= len(self.samples):
            return None
        self.position += 1
        return self.samples[self.position - 1]

    def rewind(self):
        self.position = 0`;
}

/** The naming function, when needed. */
export const namingFunction = (naming: boolean) => (naming ? `\n\n\n${NAME_NODES_FUNCTION.trimEnd()}` : '');

/** The lines of the main block that load, name and save the model; returns the path the quantizer reads. */
export function namingSteps(naming: boolean): { lines: string[]; input: string } {
  if (!naming) return { lines: [], input: 'FLOAT_MODEL' };
  return {
    lines: [
      '    # Some nodes have no name (or share one): name them as Quant Studio does, so the lists above find them.',
      '    model = onnx.load(FLOAT_MODEL)',
      `    ${NAME_NODES}(model)`,
      '    onnx.save(model, NAMED_MODEL)',
    ],
    input: 'NAMED_MODEL',
  };
}

/** TensorQuantOverrides with each quant_type written as the tool's enum member (typeNames maps int16 → QuantType.QInt16). */
export function tensorOverridesValue(
  config: QuantConfig,
  typeNames: Readonly<Record<ConfigQuantType, string>>,
): Record<string, PyValue> {
  return Object.fromEntries(
    Object.entries(config.extraOptions.TensorQuantOverrides).map(([tensor, list]) => [
      tensor,
      list.map((o) => ({ quant_type: new PyName(typeNames[o.quant_type]) })),
    ]),
  );
}

/**
 * The reduce_range a snippet passes for `config`, and a note when that is not the studio's own rule: saturation-safe
 * weights (7-bit codes only in the channels onnxruntime's x86 int8 kernels could saturate on) have no form in
 * ONNX Runtime or Quark, whose nearest is 7-bit weights everywhere.
 */
export function reduceRangeSetting(config: QuantConfig): { value: boolean; note?: string } {
  if (config.reduceRange || !config.saturationSafeWeights) return { value: config.reduceRange };
  return {
    value: true,
    note: "saturation-safe weights (7-bit codes only where x86 int8 kernels could saturate) are Quant Studio's: 7-bit weights everywhere are the nearest",
  };
}

/**
 * What the ONNX Runtime and Quark quantize scripts build alike from the exclusions: the exclusions themselves
 * (ExclusionError as the quantizer throws it), the naming steps, the file-name constants (QUANTIZED_MODEL with
 * `suffix`), the naming function and the reader skeleton.
 */
export function quantizeScriptParts(index: GraphIndex, config: QuantConfig, options: SnippetOptions, suffix: string) {
  const ex = snippetExclusions(index, config);
  return {
    ex,
    naming: namingSteps(ex.needsNaming),
    constants: fileConstants(options, suffix, ex.needsNaming),
    namingFunction: namingFunction(ex.needsNaming),
    reader: readerSkeleton(options),
  };
}
