/**
 * The configuration file the studio exports and `qstudio quantize --config <file>` reads: the full
 * QuantConfig (exclusions included, as nodesToExclude / opTypesToExclude / subgraphsToExclude) plus an
 * optional `studio` section the command line ignores — the page's settings and the user's named
 * exclusion entries, so that importing the file restores the picks as the user named them.
 *
 * The config fields are the truth: when the `studio` entries no longer say the same thing (the file was
 * edited by hand), the entries are rebuilt from the fields. Pure; errors are the core's ConfigError.
 */
import { ConfigError, configToPlainJson, validateConfig, withOptions, type QuantConfig } from '../quantize/config.ts';
import { BF16_PRESET } from '../quantize/bf16Preset.ts';

/**
 * An exclusion as the user named it; node references are stable node ids. A subgraph with `toFp32` is of the
 * other list a float16 model has: picked the same way, converted to float32 before quantizing (the guide's
 * convert_fp16_to_fp32 `subgraphs_to_include`, config fp16SubgraphsToFp32) rather than kept float.
 */
export type NamedExclusion =
  | { kind: 'subgraph'; name: string; starts: string[]; ends: string[]; toFp32?: boolean }
  | { kind: 'nodes'; name: string; nodes: string[] }
  | { kind: 'opTypes'; name: string; opTypes: string[] };

/** The page's own part of the file. */
export interface StudioSection {
  /** The model the picks were made on (for the user's information). */
  model: string | null;
  /** The page's settings: a preset, per-channel weights, random calibration data. */
  settings: { preset: string; perChannel: boolean; useRandomData: boolean } | null;
  exclusions: NamedExclusion[];
}

export const STUDIO_KEY = 'studio';
const FORMAT = 'quant-studio-config/1';

type ListFields = Pick<
  QuantConfig,
  'nodesToExclude' | 'opTypesToExclude' | 'subgraphsToExclude' | 'fp16SubgraphsToFp32'
>;

/** The QuantConfig fields that a list of named exclusions stands for (the float list and the FP16→FP32 list). */
export function exclusionFields(entries: readonly NamedExclusion[]): ListFields {
  const nodes = new Set<string>();
  const opTypes = new Set<string>();
  const subgraphs: { starts: string[]; ends: string[] }[] = [];
  const toFp32: { starts: string[]; ends: string[] }[] = [];
  for (const e of entries) {
    if (e.kind === 'nodes') e.nodes.forEach((n) => nodes.add(n));
    else if (e.kind === 'opTypes') e.opTypes.forEach((t) => opTypes.add(t));
    else (e.toFp32 ? toFp32 : subgraphs).push({ starts: [...e.starts], ends: [...e.ends] });
  }
  return {
    nodesToExclude: [...nodes],
    opTypesToExclude: [...opTypes],
    subgraphsToExclude: subgraphs,
    fp16SubgraphsToFp32: toFp32,
  };
}

/** Named entries for a config's exclusion fields (a file without a studio section, or edited by hand). */
export function entriesOfConfig(config: ListFields): NamedExclusion[] {
  const subgraph = (s: { starts: readonly string[]; ends: readonly string[] }, toFp32: boolean): NamedExclusion => ({
    kind: 'subgraph' as const,
    name: `${s.starts.join(', ')} → ${s.ends.join(', ')}`,
    starts: [...s.starts],
    ends: [...s.ends],
    ...(toFp32 ? { toFp32: true } : {}),
  });
  const out: NamedExclusion[] = [
    ...config.subgraphsToExclude.map((s) => subgraph(s, false)),
    ...config.fp16SubgraphsToFp32.map((s) => subgraph(s, true)),
  ];
  for (const n of config.nodesToExclude) out.push({ kind: 'nodes', name: n, nodes: [n] });
  if (config.opTypesToExclude.length)
    out.push({ kind: 'opTypes', name: config.opTypesToExclude.join(', '), opTypes: [...config.opTypesToExclude] });
  return out;
}

/** The file's text: the config with `studio` appended. The exclusion fields come from the entries. */
export function configDocumentToJSON(config: QuantConfig, studio: StudioSection): string {
  const json = configToPlainJson(withOptions(config, exclusionFields(studio.exclusions)));
  json[STUDIO_KEY] = { format: FORMAT, model: studio.model, settings: studio.settings, exclusions: studio.exclusions };
  return `${JSON.stringify(json, null, 2)}\n`;
}

const sameJSON = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

function stringList(v: unknown, field: string): string[] {
  if (!Array.isArray(v) || v.some((s) => typeof s !== 'string' || s === ''))
    throw new ConfigError(field, 'expected a list of non-empty strings');
  return v as string[];
}

function readEntry(v: unknown, field: string): NamedExclusion {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new ConfigError(field, 'expected an object');
  const o = v as Record<string, unknown>;
  const name = typeof o.name === 'string' && o.name.trim() ? o.name : null;
  if (!name) throw new ConfigError(`${field}.name`, 'expected a non-empty string');
  switch (o.kind) {
    case 'subgraph':
      return {
        kind: 'subgraph',
        name,
        starts: stringList(o.starts, `${field}.starts`),
        ends: stringList(o.ends, `${field}.ends`),
        ...(o.toFp32 === true ? { toFp32: true } : {}),
      };
    case 'nodes':
      return { kind: 'nodes', name, nodes: stringList(o.nodes, `${field}.nodes`) };
    case 'opTypes':
      return { kind: 'opTypes', name, opTypes: stringList(o.opTypes, `${field}.opTypes`) };
    default:
      throw new ConfigError(
        `${field}.kind`,
        `expected "subgraph", "nodes" or "opTypes", got ${JSON.stringify(o.kind)}`,
      );
  }
}

function readSettings(v: unknown): StudioSection['settings'] {
  if (v === null || v === undefined) return null;
  const o = v as Record<string, unknown>;
  if (
    typeof o !== 'object' ||
    typeof o.preset !== 'string' ||
    typeof o.perChannel !== 'boolean' ||
    typeof o.useRandomData !== 'boolean'
  ) {
    throw new ConfigError('studio.settings', 'expected {preset, perChannel, useRandomData}');
  }
  return { preset: o.preset, perChannel: o.perChannel, useRandomData: o.useRandomData };
}

/**
 * Reads a parsed configuration file: a plain QuantConfig JSON or one the studio exported. Throws
 * ConfigError naming the bad field. `studio.exclusions` always agrees with `config`'s exclusion fields.
 */
export function readConfigDocument(json: unknown): { config: QuantConfig; studio: StudioSection } {
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    throw new ConfigError('config', 'expected a JSON object');
  const { [STUDIO_KEY]: section, ...rest } = json as Record<string, unknown>;
  const config = validateConfig(rest);
  let studio: StudioSection = { model: null, settings: null, exclusions: entriesOfConfig(config) };
  if (section !== undefined) {
    const read = readStudioSection(section);
    const fields = exclusionFields(read.exclusions);
    const agree =
      sameJSON(fields.nodesToExclude, config.nodesToExclude) &&
      sameJSON(fields.opTypesToExclude, config.opTypesToExclude) &&
      sameJSON(fields.subgraphsToExclude, config.subgraphsToExclude) &&
      sameJSON(fields.fp16SubgraphsToFp32, config.fp16SubgraphsToFp32);
    studio = { ...read, exclusions: agree ? read.exclusions : studio.exclusions };
  }
  return { config, studio };
}

/** The `studio` section as written, checked field by field. */
function readStudioSection(section: unknown): StudioSection {
  if (typeof section !== 'object' || section === null || Array.isArray(section))
    throw new ConfigError('studio', 'expected an object');
  const s = section as Record<string, unknown>;
  const entries = s.exclusions === undefined ? [] : Array.isArray(s.exclusions) ? s.exclusions : null;
  if (!entries) throw new ConfigError('studio.exclusions', 'expected a list');
  return {
    model: typeof s.model === 'string' ? s.model : null,
    settings: readSettings(s.settings),
    exclusions: entries.map((e, i) => readEntry(e, `studio.exclusions[${i}]`)),
  };
}

/**
 * The file for the BF16 preset: Quark's BF16 configuration with BF16QDQToCast, which has no integer
 * QuantConfig (bfloat16 needs no ranges and no scales), plus the page's section. `qstudio quantize --config`
 * takes it as it takes `--config BF16`. The exclusion picks are kept for the page only: BF16 rounds every node.
 */
export function bf16DocumentToJSON(studio: StudioSection): string {
  const json = {
    preset: BF16_PRESET,
    extraOptions: { BF16QDQToCast: true },
    [STUDIO_KEY]: { format: FORMAT, model: studio.model, settings: studio.settings, exclusions: studio.exclusions },
  };
  return `${JSON.stringify(json, null, 2)}\n`;
}

/** A BF16 document's studio section, or null when `json` is not a BF16 document. Throws ConfigError for a bad one. */
export function readBf16Document(json: unknown): StudioSection | null {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return null;
  const o = json as Record<string, unknown>;
  if (o.preset !== BF16_PRESET) return null;
  for (const key of Object.keys(o)) {
    if (key !== 'preset' && key !== 'extraOptions' && key !== STUDIO_KEY)
      throw new ConfigError(key, 'not an option of the BF16 preset (it takes extraOptions.BF16QDQToCast only)');
  }
  const extra = o.extraOptions ?? { BF16QDQToCast: true };
  if (typeof extra !== 'object' || extra === null || !sameJSON(extra, { BF16QDQToCast: true })) {
    throw new ConfigError(
      'extraOptions',
      'the BF16 preset is written with-cast only: expected {"BF16QDQToCast": true}',
    );
  }
  return o[STUDIO_KEY] === undefined
    ? { model: null, settings: null, exclusions: [] }
    : readStudioSection(o[STUDIO_KEY]);
}

/** Parses the file's text; bad JSON is a ConfigError on field `config`. */
export function configDocumentFromJSON(text: string): { config: QuantConfig; studio: StudioSection } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new ConfigError('config', `not valid JSON (${(e as Error).message})`);
  }
  return readConfigDocument(parsed);
}
