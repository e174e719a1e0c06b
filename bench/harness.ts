/**
 * The benchmark harness: runs each case in a child process (so peak memory is per case), collects
 * the JSON line it prints, writes bench/results/<suite>.json and the suite's table in bench/README.md
 * (between `<!-- suite:NAME -->` markers). Benchmarks measure; tests never assert timings.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export type Row = Record<string, string | number | boolean | null>;

export interface Suite {
  name: string;
  title: string;
  /** [field, column heading] pairs of the README table. */
  columns: [string, string][];
  run(): Promise<Row[]>;
}

const benchDir = import.meta.dirname;

/**
 * Runs bench/<script> in a fresh Node process with tsx; returns the last JSON line it printed. Asynchronous, so that
 * servers in this process (the anchor's static files, see previewServer.ts) keep answering while the case runs.
 */
export async function runCase(script: string, args: string[]): Promise<Row> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--expose-gc', path.join(benchDir, script), ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  const code = await new Promise<number | null>((resolve, reject) =>
    child.once('error', reject).once('close', resolve),
  );
  if (code !== 0) throw new Error(`${script} ${args.join(' ')} exited with code ${code}`);
  const line = out
    .trim()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .pop();
  if (!line) throw new Error(`${script} ${args.join(' ')} printed no result`);
  return JSON.parse(line) as Row;
}

function machine(): Row {
  return {
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? '',
    memoryGB: +(os.totalmem() / 2 ** 30).toFixed(1),
    node: process.version,
  };
}

function table(suite: Suite, rows: Row[]): string {
  const head = `| ${suite.columns.map(([, h]) => h).join(' | ')} |`;
  const rule = `| ${suite.columns.map(() => '---').join(' | ')} |`;
  const body = rows.map((r) => `| ${suite.columns.map(([f]) => String(r[f] ?? '')).join(' | ')} |`);
  return [head, rule, ...body].join('\n');
}

/** The rows of a suite's last results, each with `measured` (its run's date unless the row names its own). */
export function previousRows(suiteName: string): Row[] {
  const file = path.join(benchDir, 'results', `${suiteName}.json`);
  if (!fs.existsSync(file)) return [];
  const last = JSON.parse(fs.readFileSync(file, 'utf8')) as { date: string; rows: Row[] };
  return last.rows.map((r) => ({ measured: last.date.slice(0, 10), ...r }));
}

/** Writes the results JSON and replaces the suite's section of bench/README.md. */
export function record(suite: Suite, rows: Row[]): void {
  const resultsDir = path.join(benchDir, 'results');
  fs.mkdirSync(resultsDir, { recursive: true });
  const date = new Date().toISOString();
  fs.writeFileSync(
    path.join(resultsDir, `${suite.name}.json`),
    JSON.stringify({ suite: suite.name, date, machine: machine(), rows }, null, 2) + '\n',
  );
  const readme = path.join(benchDir, 'README.md');
  const text = fs.existsSync(readme) ? fs.readFileSync(readme, 'utf8') : '# Benchmarks\n';
  const start = `<!-- suite:${suite.name} -->`;
  const end = `<!-- /suite:${suite.name} -->`;
  const m = machine();
  const section = `${start}\n## ${suite.title}\n\nMeasured ${date.slice(0, 10)} on ${m.cpus} × ${m.cpuModel}, ${m.memoryGB} GB, Node ${m.node}.\n\n${table(suite, rows)}\n${end}`;
  const re = new RegExp(`${start}[\\s\\S]*?${end}`);
  fs.writeFileSync(readme, re.test(text) ? text.replace(re, section) : `${text.trimEnd()}\n\n${section}\n`);
}
