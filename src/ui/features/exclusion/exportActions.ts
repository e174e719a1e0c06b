/**
 * The export and import of a configuration, as one-liners the components call: the config file the
 * command line reads (with the named picks), the Quark and ONNX Runtime scripts, and importing a config
 * file back (settings and picks). Nothing is changed unless the whole file is good: a bad file is a
 * named error for the page to show.
 */
import {
  bf16DocumentToJSON,
  configDocumentFromJSON,
  configDocumentToJSON,
  ortSnippet,
  quarkBf16Snippet,
  quarkSnippet,
  readBf16Document,
  type NamedExclusion,
} from '../../../core/export/index.ts';
import { BF16_PRESET } from '../../../core/quantize/bf16Preset.ts';
import { StudioError } from '../../../core/onnx/errors.ts';
import type { GraphIndex } from '../../../core/onnx/graphIndex.ts';
import type { NodeId } from '../../../core/onnx/model.ts';
import { downloadText } from '../../components/useObjectUrl.ts';
import { exportedConfig, useStudio, type ExclusionEntry, type NewExclusion } from '../../store/index.ts';
import { shownPreset } from '../../store/quantSettings.ts';
import { recoveryStepsOf, settingsForConfig } from './importedSettings.ts';
import { modelStem } from '../../../core/onnx/fileName.ts';

export type SnippetKind = 'quark' | 'ort';

/** The ONNX Runtime script was asked for under the BF16 preset, which quantize_static does not have. */
export class NoOrtBf16Error extends StudioError {
  override readonly name = 'NoOrtBf16Error';
}

/** The file's JSON, or undefined when it is not JSON (configDocumentFromJSON then names the problem). */
function parseConfigText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const stem = (fileName: string | null) => modelStem(fileName ?? 'model.onnx');

/** An entry without its id, as the file holds it. */
function named(entry: ExclusionEntry): NamedExclusion {
  const { id: _id, ...rest } = entry;
  return rest as NamedExclusion;
}

/** The config file's text for the current settings and picks. */
export function configFileText(): string {
  const state = useStudio.getState();
  const { model, run, exclusions } = state;
  const { perChannel, useRandomData } = run.settings;
  if (run.settings.bf16)
    return bf16DocumentToJSON({
      model: model.fileName,
      settings: { preset: shownPreset(run.settings), perChannel, useRandomData },
      exclusions: exclusions.entries.map(named),
    });
  // The adopted model's own configuration where there is one (exportedConfig), else the settings'.
  const exported = exportedConfig(state);
  const settings = {
    preset: exported.preset,
    perChannel: exported.config.perChannel,
    useRandomData: exported.config.extraOptions.UseRandomData,
  };
  return configDocumentToJSON(exported.config, {
    model: model.fileName,
    settings,
    exclusions: exclusions.entries.map(named),
  });
}

/** `<model>.qstudio.json`, which `qstudio quantize --config` reads as is. */
export function configFileName(): string {
  return `${stem(useStudio.getState().model.fileName)}.qstudio.json`;
}

export function downloadConfigFile(): void {
  downloadText(configFileText(), configFileName());
}

/** The script's text; throws the core's ExclusionError when a pick names nothing in this model. */
export function snippetText(kind: SnippetKind, index: GraphIndex): string {
  const state = useStudio.getState();
  const { model, run } = state;
  const modelOptions = { modelFile: model.fileName ?? 'model.onnx', inputs: model.summary?.inputs ?? [] };
  if (run.settings.bf16) {
    if (kind === 'ort')
      throw new NoOrtBf16Error(
        "ONNX Runtime's quantize_static has no BF16 format: use the Quark script (Quark's BF16 with BF16QDQToCast), or download the model from step 5.",
      );
    return quarkBf16Snippet(
      { ...modelOptions, configName: shownPreset(run.settings) },
      model.summary?.float16 ?? false,
    );
  }
  const { config, preset } = exportedConfig(state);
  const options = { ...modelOptions, configName: preset };
  return kind === 'quark' ? quarkSnippet(index, config, options) : ortSnippet(index, config, options);
}

export const snippetFileName = (kind: SnippetKind) =>
  `quantize_${stem(useStudio.getState().model.fileName).replace(/[^\w]+/g, '_')}_${kind}.py`;

export interface ImportOutcome {
  /** How many picks the file restored. */
  picks: number;
  /** Set when the file's settings are none of the page's presets (the picks are restored, the settings kept). */
  settingsNote: string | null;
}

/** Reads a config file and restores its settings, the recovery steps it switches on, and its picks; throws ConfigError (nothing changed) for a bad file. */
export async function importConfigFile(file: File): Promise<ImportOutcome> {
  const text = await file.text();
  const bf16 = readBf16Document(parseConfigText(text));
  if (bf16) {
    const store = useStudio.getState();
    store.setQuantPreset(BF16_PRESET);
    store.replaceExclusions(bf16.exclusions.map((e) => ({ ...e }) as unknown as NewExclusion));
    return { picks: bf16.exclusions.length, settingsNote: null };
  }
  const { config, studio } = configDocumentFromJSON(text);
  const settings = settingsForConfig(config, studio.settings?.preset);
  const store = useStudio.getState();
  if (settings) {
    store.setQuantPreset(settings.preset);
    store.setPerChannel(settings.perChannel);
    store.setCalibrationMethod(settings.calibrationMethod ?? null);
    store.setUseRandomData(settings.useRandomData);
    if (settings.fp16) store.setFp16Options(settings.fp16);
    store.setTensorOverrides(settings.tensorOverrides);
    store.setRecoveryOptions(recoveryStepsOf(config));
  }
  // Ids in a file are plain strings; they become node references here (the list shows any that name nothing).
  store.replaceExclusions(studio.exclusions.map((e) => ({ ...e }) as unknown as NewExclusion & { nodes?: NodeId[] }));
  return {
    picks: studio.exclusions.length,
    settingsNote: settings
      ? null
      : 'The file’s quantization settings are none of the page’s presets: the picks are restored, the settings are left as they were (the command line takes the file as is).',
  };
}
