/**
 * A ready-to-run Python script that quantizes the same model with AMD Quark (quark.onnx ModelQuantizer,
 * QConfig.get_default_config as Quark's Ryzen AI guide uses it) under the studio's configuration: its types, calibration method and
 * extra_options, `subgraphs_to_exclude` as [([starts], [ends])] and `nodes_to_exclude` (single nodes,
 * and op-type exclusions expanded to their nodes, so Quark leaves exactly the nodes the graph showed).
 * Pure text from the model's graph index and a QuantConfig; throws ExclusionError like the quantizer.
 */
import type { GraphIndex } from '../onnx/graphIndex.ts';
import type { ModelProto } from '../onnx/model.ts';
import { float16Nodes } from '../halfFloat/float16.ts';
import { quarkCalibrateMethod, type ConfigQuantType, type QuantConfig } from '../quantize/config.ts';
import { isPresetName, type PresetName } from '../quantize/presets.ts';
import { py, PyTuple, type PyValue } from './python.ts';
import { snippetExclusions } from './snippetExclusions.ts';
import {
  fileConstants,
  quantizeScriptParts,
  readerSkeleton,
  reduceRangeSetting,
  tensorOverridesValue,
  type SnippetOptions,
} from './snippetParts.ts';

/** Quark's name of a quantization type (16-bit types are Quark's ExtendedQuantType). */
const QUARK_TYPES: Readonly<Record<ConfigQuantType, string>> = {
  int8: 'QuantType.QInt8',
  uint8: 'QuantType.QUInt8',
  int16: 'ExtendedQuantType.QInt16',
  uint16: 'ExtendedQuantType.QUInt16',
};

/**
 * extra_options as Quark reads them (same keys). Unset values (null) are left out, and so are the options
 * of steps the config does not run (CLE without include_cle, SmoothAlpha without include_sq; fast finetuning,
 * which the studio never runs).
 */
function quarkExtraOptions(config: QuantConfig, float16: boolean): Record<string, PyValue> {
  const used = ([key, value]: [string, unknown]) =>
    value !== null &&
    key !== 'FastFinetune' &&
    (config.includeCle || !key.startsWith('CLE')) &&
    (config.includeSq || key !== 'SmoothAlpha') &&
    key !== 'TensorQuantOverrides';
  const options = Object.fromEntries(
    Object.entries(config.extraOptions as unknown as Record<string, PyValue>).filter(used),
  );
  // Mixed precision: the same key as ONNX Runtime's, with Quark's type names.
  if (Object.keys(config.extraOptions.TensorQuantOverrides).length)
    options.TensorQuantOverrides = tensorOverridesValue(config, QUARK_TYPES);
  // A float16 model the studio quantizes with QuantizeFP16 (its default for such models) says so to Quark,
  // which needs it set; the guide's FP16 workflow sets both options.
  if (float16 && !config.extraOptions.ConvertFP16ToFP32) options.QuantizeFP16 = true;
  return options;
}

/**
 * Step 1 of the guide's FP16 workflow: Quark's Shapeshifter pass convert_fp16_to_fp32 on the chosen
 * subgraphs (the rest stays float16), written to CONVERTED_MODEL; nothing when none is chosen.
 */
function fp16ConversionStep(
  subgraphs: readonly { starts: string[]; ends: string[] }[],
  input: string,
): { constants: string; lines: string[]; input: string } {
  if (subgraphs.length === 0) return { constants: '', lines: [], input };
  return {
    constants: `\n\n# Float16 model: these subgraphs are converted to float32 first (Shapeshifter convert_fp16_to_fp32),
# the rest stays float16. Each entry: [[first nodes], [last nodes]].
FP16_SUBGRAPHS_TO_FP32 = ${py(subgraphs.map((s) => [s.starts, s.ends]))}
CONVERTED_MODEL = QUANTIZED_MODEL.replace(".onnx", ".fp32_parts.onnx")`,
    lines: [
      '    # Step 1: the chosen float16 subgraphs to float32.',
      '    from quark.shapeshifter import Engine, LoadConfigFromFileOrDict',
      `    passes = {"onnx_convert_fp16_to_fp32": {"convert_fp16_to_fp32": True, "subgraphs_to_include": FP16_SUBGRAPHS_TO_FP32}}`,
      `    engine = Engine(config=LoadConfigFromFileOrDict({"input_model_path": ${input}, "passes": passes, "output_model_path": CONVERTED_MODEL}).data)`,
      '    engine.initialize()',
      '    engine.run()',
      '    # Step 2: quantize the mixed float16/float32 model.',
    ],
    input: 'CONVERTED_MODEL',
  };
}

/**
 * The Quark preset the script starts from (QConfig.get_default_config). Every setting is then written
 * out explicitly, so the base only matters for options the studio does not model; the page's ONNX
 * Runtime presets start from the Quark preset with the same types.
 */
const QUARK_BASE: Readonly<Record<PresetName, string>> = {
  XINT8: 'XINT8',
  VINT8: 'VINT8',
  A8W8: 'A8W8',
  A16W8: 'A16W8',
  U8S8_AAWS: 'U8S8_AAWS',
  S8S8_AAWS: 'S8S8_AAWS',
  U8S8: 'U8S8_AAWS',
  S8S8: 'S8S8_AAWS',
};

/** The Quark script for `config` on the model behind `index`. */
export function quarkSnippet(index: GraphIndex, config: QuantConfig, options: SnippetOptions): string {
  const { ex, naming, constants, namingFunction, reader } = quantizeScriptParts(index, config, options, 'quark');
  const method = quarkCalibrateMethod(config);
  const types = [QUARK_TYPES[config.activationType], QUARK_TYPES[config.weightType]];
  const quarkImports = new Set(['ModelQuantizer', 'QConfig']);
  const overrideTypes = Object.values(config.extraOptions.TensorQuantOverrides).flatMap((l) =>
    l.map((o) => QUARK_TYPES[o.quant_type]),
  );
  if ([...types, ...overrideTypes].some((t) => t.startsWith('ExtendedQuantType')))
    quarkImports.add('ExtendedQuantType');
  if (method.startsWith('PowerOfTwoMethod')) quarkImports.add('PowerOfTwoMethod');
  if (method.startsWith('ExtendedCalibrationMethod')) quarkImports.add('ExtendedCalibrationMethod');
  const random = config.extraOptions.UseRandomData;
  const float16 = float16Nodes({ graph: index.graph } as ModelProto).size > 0;
  const fp16Parts = config.fp16SubgraphsToFp32.length
    ? snippetExclusions(index, { subgraphsToExclude: config.fp16SubgraphsToFp32 }).subgraphs
    : [];
  const conversion = fp16ConversionStep(fp16Parts, naming.input);
  const base = isPresetName(options.configName)
    ? QUARK_BASE[options.configName]
    : config.scaleType === 'powerOfTwo'
      ? 'XINT8'
      : 'A8W8';

  const settings: [string, string][] = [
    ['quant_format', 'QuantFormat.QDQ'],
    ['calibrate_method', method],
    ['activation_type', types[0]],
    ['weight_type', types[1]],
    ['per_channel', py(config.perChannel)],
    ['reduce_range', py(reduceRangeSetting(config).value)],
    ['enable_npu_cnn', py(config.enableNpuCnn)],
    ['include_cle', py(config.includeCle)],
  ];
  if (config.enableNpuTransformer) settings.push(['enable_npu_transformer', py(true)]);
  if (config.includeSq) settings.push(['include_sq', py(true)]);
  if (config.opTypesToQuantize.length) settings.push(['op_types_to_quantize', py([...config.opTypesToQuantize])]);
  settings.push(['nodes_to_exclude', 'NODES_TO_EXCLUDE'], ['subgraphs_to_exclude', 'SUBGRAPHS_TO_EXCLUDE']);

  return `"""Quantizes ${options.modelFile} with AMD Quark as Quant Studio was set up (${options.configName}).

Generated by Quant Studio. Needs: pip install amd-quark onnxruntime onnx numpy
Node names are Quant Studio's node ids; for a node without a name that is the name the studio's
own quantized model gives it, and the script names the float model's nodes the same way first.
"""
import numpy as np
import onnx
from onnxruntime.quantization.calibrate import CalibrationDataReader, CalibrationMethod
from onnxruntime.quantization.quant_utils import QuantFormat, QuantType
from quark.onnx import ${[...quarkImports].join(', ')}

${constants}

# Connected blocks that stay float: ([first nodes], [last nodes]), both ends included.
SUBGRAPHS_TO_EXCLUDE = ${py(ex.subgraphs.map((s) => new PyTuple([s.starts, s.ends])))}

# Single nodes that stay float${config.opTypesToExclude.length ? ` (with every ${config.opTypesToExclude.join(', ')} node)` : ''}.
NODES_TO_EXCLUDE = ${py(ex.nodes)}${conversion.constants}

# Quark's ${base} preset, then every setting as Quant Studio used it.
quant_config = QConfig.get_default_config(${py(base)})
settings = quant_config.global_quant_config
${settings.map(([k, v]) => `settings.${k} = ${v}${k === 'reduce_range' && reduceRangeSetting(config).note ? `  # ${reduceRangeSetting(config).note}` : ''}`).join('\n')}
settings.extra_options.update(${py(quarkExtraOptions(config, float16))})${namingFunction}


${reader}


if __name__ == "__main__":
${[
  ...naming.lines,
  ...conversion.lines,
  '    quantizer = ModelQuantizer(quant_config)',
  random
    ? '    # UseRandomData is set: Quark calibrates on random inputs, no reader needed.\n    reader = None'
    : '    reader = SampleReader(load_samples())',
  `    quantizer.quantize_model(${conversion.input}, QUANTIZED_MODEL, reader)`,
  '    print("wrote", QUANTIZED_MODEL)',
].join('\n')}
`;
}

/**
 * The Quark script for the BF16 preset, as the guide's "BF16 Quantization for CPU/GPU Validation" writes it:
 * QConfig.get_default_config("BF16") with BF16QDQToCast, calibration optional (None unless the user fills
 * the reader in). A float16 model is converted to float32 first, as the studio does. `float16`: the model
 * computes in float16.
 */
export function quarkBf16Snippet(options: SnippetOptions, float16: boolean): string {
  const conversion = float16
    ? [
        '    # The model computes in float16: convert it to float32 first, as Quant Studio does.',
        '    from quark.shapeshifter import Engine, LoadConfigFromFileOrDict',
        '    passes = {"onnx_convert_fp16_to_fp32": {"convert_fp16_to_fp32": True}}',
        '    engine = Engine(config=LoadConfigFromFileOrDict({"input_model_path": FLOAT_MODEL, "passes": passes, "output_model_path": CONVERTED_MODEL}).data)',
        '    engine.initialize()',
        '    engine.run()',
      ]
    : [];
  return `"""Writes the BF16 CPU-validation model of ${options.modelFile} with AMD Quark as Quant Studio was set up (BF16, with-cast).

Generated by Quant Studio. Needs: pip install amd-quark onnxruntime onnx numpy
With-cast (BF16QDQToCast): a Cast to bfloat16 and back where Q/DQ would go, matching the Vitis AI
compiler's BF16. The result is for measuring BF16 loss on a CPU/GPU; compile the float model for the NPU.
"""
import numpy as np
import onnx
from onnxruntime.quantization.calibrate import CalibrationDataReader
from quark.onnx import ModelQuantizer, QConfig

${fileConstants(options, 'bf16', false)}${float16 ? `\nCONVERTED_MODEL = QUANTIZED_MODEL.replace(".onnx", ".fp32.onnx")` : ''}

# Quark's BF16 preset, with-cast.
quant_config = QConfig.get_default_config("BF16")
quant_config.global_quant_config.extra_options["BF16QDQToCast"] = True


${readerSkeleton(options)}


if __name__ == "__main__":
${[
  ...conversion,
  '    quantizer = ModelQuantizer(quant_config)',
  '    # Calibration data is optional for BF16: pass SampleReader(load_samples()) instead of None to use yours.',
  `    quantizer.quantize_model(${float16 ? 'CONVERTED_MODEL' : 'FLOAT_MODEL'}, QUANTIZED_MODEL, None)`,
  '    print("wrote", QUANTIZED_MODEL)',
].join('\n')}
`;
}
