/**
 * The export and import of a configuration, as one-liners the components call: the config file the
 * command line reads (with the named picks), the Quark and ONNX Runtime scripts, and importing a config
 * file back (settings and picks). Nothing is changed unless the whole file is good: a bad file is a
 * named error for the page to show.
 */
import { configDocumentFromJSON, configDocumentToJSON, ortSnippet, quarkSnippet, type NamedExclusion } from '../../../core/export/index.ts';
import type { GraphIndex } from '../../../core/onnx/graphIndex.ts';
import type { NodeId } from '../../../core/onnx/model.ts';
import { downloadText } from '../../components/useObjectUrl.ts';
import { currentConfig, useStudio, type ExclusionEntry, type NewExclusion } from '../../store/index.ts';
import { configOf } from '../../store/quantSettings.ts';
import { settingsForConfig } from './importedSettings.ts';

export type SnippetKind = 'quark' | 'ort';

const stem = (fileName: string | null) => (fileName ?? 'model.onnx').replace(/\.onnx$/i, '');

/** An entry without its id, as the file holds it. */
function named(entry: ExclusionEntry): NamedExclusion {
  const { id: _id, ...rest } = entry;
  return rest as NamedExclusion;
}

/** The config file's text for the current settings and picks. */
export function configFileText(): string {
  const { model, run, exclusions } = useStudio.getState();
  return configDocumentToJSON(configOf(run.settings), { model: model.fileName, settings: { ...run.settings }, exclusions: exclusions.entries.map(named) });
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
  const config = currentConfig(state);
  const options = { modelFile: model.fileName ?? 'model.onnx', inputs: model.summary?.inputs ?? [], configName: run.settings.preset };
  return kind === 'quark' ? quarkSnippet(index, config, options) : ortSnippet(index, config, options);
}

export const snippetFileName = (kind: SnippetKind) => `quantize_${stem(useStudio.getState().model.fileName).replace(/[^\w]+/g, '_')}_${kind}.py`;

export interface ImportOutcome {
  /** How many picks the file restored. */
  picks: number;
  /** Set when the file's settings are none of the page's presets (the picks are restored, the settings kept). */
  settingsNote: string | null;
}

/** Reads a config file and restores its settings and picks; throws ConfigError (nothing changed) for a bad file. */
export async function importConfigFile(file: File): Promise<ImportOutcome> {
  const { config, studio } = configDocumentFromJSON(await file.text());
  const settings = settingsForConfig(config, studio.settings?.preset);
  const store = useStudio.getState();
  if (settings) {
    store.setQuantPreset(settings.preset);
    store.setPerChannel(settings.perChannel);
    store.setUseRandomData(settings.useRandomData);
    store.setTensorOverrides(settings.tensorOverrides);
  }
  // Ids in a file are plain strings; they become node references here (the list shows any that name nothing).
  store.replaceExclusions(studio.exclusions.map((e) => ({ ...e }) as unknown as NewExclusion & { nodes?: NodeId[] }));
  return {
    picks: studio.exclusions.length,
    settingsNote: settings ? null : 'The file’s quantization settings are none of the page’s presets: the picks are restored, the settings are left as they were (the command line takes the file as is).',
  };
}
