/**
 * `--config <preset|file>`: a preset name or a configuration JSON file (the page's export included), with the command line's own
 * exclusions and switches added on top. Errors name the file and the bad field.
 */
import { withOptions, type CalibrationMethod, type QuantConfig } from '../core/quantize/config.ts';
import fs from 'node:fs';
import { isPresetName, PRESET_NAMES, presetWithMethod } from '../core/quantize/presets.ts';
import { readBf16Document, readConfigDocument } from '../core/export/configDocument.ts';
import { readInputFile, InputFileError } from './usage.ts';

export interface ConfigAdditions {
  perChannel?: boolean;
  /** `--calibration-method`: instead of the preset's or the file's (a preset keeps the options that follow its method defaulted). */
  calibrationMethod?: string;
  /** 7-bit weights (ONNX Runtime's reduce_range), for CPUs whose int8 kernels saturate. */
  reduceRange?: boolean;
  /** 7-bit codes only in the weight channels that could saturate those kernels (quantize/cpuKernelSafety.ts). */
  saturationSafeWeights?: boolean;
  /** `--no-fold-conv-affine`: keep Conv → Mul/Add by constants as written (config.foldConvAffine false). */
  foldConvAffine?: boolean;
  nodesToExclude: string[];
  opTypesToExclude: string[];
  subgraphsToExclude: { starts: string[]; ends: string[] }[];
  /** FP16 source models: subgraphs converted to float32 (Shapeshifter subgraphs_to_include). */
  fp16SubgraphsToFp32?: { starts: string[]; ends: string[] }[];
  /** `--enable-subgraph`: calibrate and quantize the compute inside If/Loop/Scan bodies too ("EnableSubgraph": true). */
  enableSubgraph?: boolean;
  /** FP16 source models: extra options set on the command line (QuantizeFP16, UseFP32Scale, ConvertFP16ToFP32). */
  fp16Options?: { QuantizeFP16?: boolean; UseFP32Scale?: boolean; ConvertFP16ToFP32?: boolean };
}

export function loadConfigArgument(argument: string, add: ConfigAdditions): { config: QuantConfig; name: string } {
  let base: QuantConfig;
  let name: string;
  if (isPresetName(argument)) {
    base = presetWithMethod(argument, add.calibrationMethod as QuantConfig['calibrationMethod'] | undefined);
    name = argument;
  } else {
    if (!fs.existsSync(argument)) {
      throw new InputFileError(
        `--config "${argument}" is neither a preset (${PRESET_NAMES.join(', ')}) nor an existing file`,
      );
    }
    const text = new TextDecoder().decode(readInputFile(argument));
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (e) {
      throw new InputFileError(`"${argument}" is neither a preset name nor a JSON file: ${(e as Error).message}`);
    }
    if (readBf16Document(json)) {
      throw new InputFileError(
        `"${argument}" is the BF16 preset's configuration: "qstudio quantize --config ${argument}" writes its model (BF16 needs no ranges)`,
      );
    }
    // A file the page exported carries a `studio` section (its named picks): the config fields are what counts.
    base = readConfigDocument(json).config;
    name = argument;
  }
  const given = <T extends object>(o: T) =>
    Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
  const config = withOptions(base, {
    ...given({
      perChannel: add.perChannel,
      calibrationMethod: add.calibrationMethod as CalibrationMethod | undefined,
      reduceRange: add.reduceRange,
      saturationSafeWeights: add.saturationSafeWeights,
      foldConvAffine: add.foldConvAffine,
    }),
    nodesToExclude: [...base.nodesToExclude, ...add.nodesToExclude],
    opTypesToExclude: [...base.opTypesToExclude, ...add.opTypesToExclude],
    subgraphsToExclude: [...base.subgraphsToExclude, ...add.subgraphsToExclude],
    fp16SubgraphsToFp32: [...base.fp16SubgraphsToFp32, ...(add.fp16SubgraphsToFp32 ?? [])],
    extraOptions: { ...given(add.fp16Options ?? {}), ...(add.enableSubgraph ? { EnableSubgraph: true } : {}) },
  });
  return { config, name };
}

/** Whether `--config <argument>` names a BF16 configuration file (the page's export of the BF16 preset). */
export function isBf16ConfigFile(argument: string | undefined): boolean {
  if (!argument || isPresetName(argument) || !fs.existsSync(argument)) return false;
  try {
    return readBf16Document(JSON.parse(new TextDecoder().decode(readInputFile(argument)))) !== null;
  } catch (e) {
    if (e instanceof SyntaxError) return false; // not JSON: loadConfigArgument names the problem
    throw e;
  }
}
