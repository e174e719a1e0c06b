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
const IMPORTS = new Map(FILES.map((f) => [f, importsOf(f)]));

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
