/**
 * Sums a .cpuprofile (variantProfile.ts, or `node --cpu-prof`) by self time: the top functions (with file and line)
 * and the totals per source file, in seconds. Usage: profileSummary.ts <file.cpuprofile> [top=30]
 */
import fs from 'node:fs';
import path from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
const [file, topArg] = process.argv.slice(2);
const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
};
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map<number, number>();
profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
const byFunction = new Map<string, number>();
const byFile = new Map<string, number>();
for (const [id, us] of self) {
  const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
  const where = url ? path.basename(url.split('?')[0]) : '(native)';
  const fn = `${functionName || '(anonymous)'} ${where}:${lineNumber + 1}`;
  byFunction.set(fn, (byFunction.get(fn) ?? 0) + us);
  byFile.set(where, (byFile.get(where) ?? 0) + us);
}
const total = [...self.values()].reduce((a, b) => a + b, 0);
const show = (title: string, m: Map<string, number>, top: number) => {
  console.log(`${title} (of ${(total / 1e6).toFixed(1)} s sampled)`);
  for (const [k, us] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(`${(us / 1e6).toFixed(2).padStart(8)} s  ${k}`);
};
show('self time by function', byFunction, Number(topArg ?? 30));
show('self time by file', byFile, 20);
