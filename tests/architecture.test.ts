/**
 * The dependency rules of docs/ARCHITECTURE.md, checked on the source as it is: every module's static
 * imports (and re-exports) are read as text, so a change that breaks a rule fails here, not in review.
 * Test files are left out (they may reach anywhere to build real fixtures). Reads files only; fast.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.join(import.meta.dirname, '..');

/** Non-test TypeScript files under `dir`, relative to the repository root. */
function sources(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(path.join(ROOT, d), { withFileTypes: true })) {
      const rel = path.join(d, e.name);
      if (e.isDirectory()) {
        if (e.name !== 'proto' && e.name !== 'node_modules') walk(rel);
      } else if (/\.tsx?$/.test(e.name) && !/\.(test|spec)\.tsx?$/.test(e.name)) out.push(rel);
    }
  };
  walk(dir);
  return out;
}

/** What a file imports (`import … from`, `export … from`, `import '…'`): relative imports resolved to repository paths, packages by name. */
function importsOf(file: string): { local: string[]; packages: string[] } {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  const local: string[] = [];
  const packages: string[] = [];
  for (const m of text.matchAll(/^\s*(?:import|export)\s(?:[^;]*?\sfrom\s+)?'([^']+)'/gms)) {
    const spec = m[1];
    if (spec.startsWith('.')) local.push(path.normalize(path.join(path.dirname(file), spec)));
    else packages.push(spec);
  }
  return { local, packages };
}

const FILES = [...sources('src'), ...sources('workers')];

/**
 * Core's folders by layer, read from the import graph: a folder imports only from folders of a lower number.
 * 0 the shared helpers at core's root; 1 the ONNX model (onnx) and the sample's text scenes (samples); 2 what reads a
 * model without quantizing it (runtime, prepare, preprocess, graph, metrics, exclude); 3 what builds on those (halfFloat
 * on prepare, task heads on metrics, preprocessing and the runtime); 4 the quantizer; 5 calibration and the exported
 * files, on the quantizer; 6 evaluation; 7 the measured searches (suggest, mixed precision); 8 the report, on the
 * searches and task heads; 9 recovery and the ladder, on everything.
 */
const CORE_LAYERS: Readonly<Record<string, number>> = {
  '.': 0,
  onnx: 1,
  samples: 1,
  runtime: 2,
  prepare: 2,
  preprocess: 2,
  graph: 2,
  metrics: 2,
  exclude: 2,
  halfFloat: 3,
  task: 3,
  quantize: 4,
  calibrate: 5,
  export: 5,
  evaluate: 6,
  search: 7,
  report: 8,
  recovery: 9,
};

const IMPORTS = new Map(FILES.map((f) => [f, importsOf(f)]));

/** Config edits made by hand instead of through core: a JSON round trip, recovery switches set field by field. */
const CONFIG_EDITS: [RegExp, string][] = [
  [/JSON\.parse\(\s*configToJSON\(/, 'a config edited through JSON: use withOptions'],
  [
    /\.(includeFastFt|includeCle|includeSq)\s*=(?!=)/,
    'recovery switches set by hand: use withRecoverySwitches or withOptions',
  ],
];

/** `file: why` for each file whose text matches one of the patterns. */
function copiesIn(files: readonly string[], patterns: readonly [RegExp, string][]): string[] {
  return files.flatMap((file) => {
    const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
    return patterns.filter(([re]) => re.test(text)).map(([, why]) => `${file}: ${why}`);
  });
}

describe('architecture: which way dependencies point', () => {
  it('reads the tree (a sanity check on the reader itself)', () => {
    expect(FILES.length).toBeGreaterThan(200);
    expect(IMPORTS.get(path.join('src', 'cli', 'runtime', 'ortNode.ts'))!.packages).toContain('onnxruntime-node');
  });

  it('src/core imports nothing of ui, cli or workers, and no runtime, DOM framework or Node module', () => {
    const bad = [...IMPORTS].flatMap(([file, { local, packages }]) =>
      !file.startsWith(path.join('src', 'core'))
        ? []
        : [
            ...local.filter((l) => !l.startsWith(path.join('src', 'core'))),
            ...packages.filter((p) => /^(node:|onnxruntime|react|zustand|comlink|cytoscape)/.test(p)),
          ].map((x) => `${file} → ${x}`),
    );
    expect(bad).toEqual([]);
  });

  it('in the page, only src/ui/remote imports workers/', () => {
    const bad = [...IMPORTS].flatMap(([file, { local }]) =>
      file.startsWith(path.join('src', 'ui')) && !file.startsWith(path.join('src', 'ui', 'remote'))
        ? local.filter((l) => l.startsWith('workers')).map((l) => `${file} → ${l}`)
        : [],
    );
    expect(bad).toEqual([]);
  });

  it('only src/cli/runtime/ortNode.ts imports onnxruntime-node', () => {
    const importers = [...IMPORTS].filter(([, { packages }]) => packages.includes('onnxruntime-node')).map(([f]) => f);
    expect(importers).toEqual([path.join('src', 'cli', 'runtime', 'ortNode.ts')]);
  });

  it("core's folders are layered: a folder imports only from folders of lower layers (docs/ARCHITECTURE.md)", () => {
    const core = path.join('src', 'core');
    const folderOf = (file: string) => {
      const parts = path.relative(core, file).split(path.sep);
      return parts.length === 1 ? '.' : parts[0];
    };
    const folders = new Set([...IMPORTS.keys()].filter((f) => f.startsWith(core + path.sep)).map(folderOf));
    const unlayered = [...folders].filter((f) => !(f in CORE_LAYERS));
    expect(unlayered, 'a new core folder needs its layer in CORE_LAYERS').toEqual([]);
    const bad = [...IMPORTS].flatMap(([file, { local }]) => {
      if (!file.startsWith(core + path.sep)) return [];
      const from = folderOf(file);
      return local
        .filter((l) => l.startsWith(core + path.sep))
        .filter((l) => folderOf(l) !== from && !(CORE_LAYERS[folderOf(l)] < CORE_LAYERS[from]))
        .map((l) => `${file} → ${l}`);
    });
    expect(bad).toEqual([]);
  });

  it('in the page, the store, the persistence, the remotes and the services never import a screen (src/ui/features)', () => {
    const lower = ['store', 'persist', 'remote', 'services'].map((d) => path.join('src', 'ui', d) + path.sep);
    const features = path.join('src', 'ui', 'features') + path.sep;
    const bad = [...IMPORTS].flatMap(([file, { local }]) =>
      lower.some((d) => file.startsWith(d))
        ? local.filter((l) => l.startsWith(features)).map((l) => `${file} → ${l}`)
        : [],
    );
    expect(bad).toEqual([]);
  });

  it('the page and the CLI wire shared work through one core function, never their own copy', () => {
    // climbLadder's options: core/recovery/ladderSetup.ts ladderClimbOptions; a config edit: withOptions; the
    // recovery switches: core/recovery/recoverySwitches.ts withRecoverySwitches; the exclusion search's measure:
    // core/search/suggestMeasure.ts.
    const COPIES: [RegExp, string][] = [
      [/\bladderMeasures\(/, 'ladderMeasures outside core: use ladderClimbOptions'],
      [/\brankLayers\(/, "the exclusion search's measure built outside core: use suggestMeasure"],
      ...CONFIG_EDITS,
    ];
    const outsideCore = [...IMPORTS.keys()].filter((f) => !f.startsWith(path.join('src', 'core') + path.sep));
    expect(copiesIn(outsideCore, COPIES)).toEqual([]);
  });

  it('the benchmarks edit configs as the product does (they may measure core pieces such as rankLayers directly)', () => {
    const bench = sources('bench');
    expect(bench.length).toBeGreaterThan(20);
    expect(copiesIn(bench, CONFIG_EDITS)).toEqual([]);
  });

  it('no import cycles (type-only imports included)', () => {
    const state = new Map<string, 'open' | 'done'>();
    const cycles: string[] = [];
    const visit = (file: string, trail: string[]) => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'open') {
        cycles.push([...trail.slice(trail.indexOf(file)), file].join(' → '));
        return;
      }
      state.set(file, 'open');
      for (const next of IMPORTS.get(file)?.local ?? []) if (IMPORTS.has(next)) visit(next, [...trail, file]);
      state.set(file, 'done');
    };
    for (const file of IMPORTS.keys()) visit(file, []);
    expect(cycles).toEqual([]);
  });
});
