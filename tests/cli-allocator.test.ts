/**
 * bin/allocator.js: on Linux `qstudio` runs the command in a child process with glibc's malloc told to keep freed
 * memory (no mmap'd blocks, no trimming), unless the caller set glibc tunables. Checked on real processes: a preload
 * script (NODE_OPTIONS reaches the child too) records each node process's pid, parent and tunables; the exit status and
 * the printed text pass through; a SIGTERM sent to the command's pid stops the child that runs it.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { allocatorEnvironment, QSTUDIO_TUNABLES } from '../bin/allocator.js';
import { IMAGES, MODELS } from './helpers/fixtures.ts';

const BIN = path.resolve(import.meta.dirname, '../bin/qstudio.js');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'qs-allocator-'));
const PRELOAD = path.join(tmp, 'record.cjs');
fs.writeFileSync(
  PRELOAD,
  `require('node:fs').appendFileSync(process.env.QS_RECORD, JSON.stringify({ pid: process.pid, ppid: process.ppid, tunables: process.env.GLIBC_TUNABLES ?? null }) + '\\n');\n`,
);

interface Recorded {
  readonly pid: number;
  readonly ppid: number;
  readonly tunables: string | null;
}

/** Each process recorded once (tsx's loader thread runs the preload again in the same process). */
function recorded(file: string): Recorded[] {
  const byPid = new Map<number, Recorded>();
  for (const line of fs.readFileSync(file, 'utf8').trim().split('\n')) {
    const p = JSON.parse(line) as Recorded;
    if (!byPid.has(p.pid)) byPid.set(p.pid, p);
  }
  return [...byPid.values()];
}

/** The environment without the caller's tunables, recording each node process that starts into `record`. */
function recordingEnv(record: string, tunables?: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_OPTIONS: `--require ${PRELOAD}`, QS_RECORD: record };
  delete env.GLIBC_TUNABLES;
  if (tunables !== undefined) env.GLIBC_TUNABLES = tunables;
  return env;
}

describe('allocatorEnvironment', () => {
  it("sets qstudio's tunables on Linux only, not under a debugger, and keeps the caller's own", () => {
    expect(allocatorEnvironment({ PATH: '/bin' }, 'linux')).toEqual({ PATH: '/bin', GLIBC_TUNABLES: QSTUDIO_TUNABLES });
    expect(QSTUDIO_TUNABLES).toContain('glibc.malloc.mmap_max=0');
    expect(allocatorEnvironment({ PATH: '/bin' }, 'darwin')).toBeNull();
    expect(allocatorEnvironment({ PATH: '/bin' }, 'win32')).toBeNull();
    expect(allocatorEnvironment({ GLIBC_TUNABLES: 'glibc.malloc.arena_max=2' }, 'linux')).toBeNull();
    expect(allocatorEnvironment({ GLIBC_TUNABLES: '' }, 'linux')).toBeNull();
    expect(allocatorEnvironment({ PATH: '/bin' }, 'linux', ['--inspect-brk'])).toBeNull();
    expect(allocatorEnvironment({ PATH: '/bin' }, 'linux', ['--cpu-prof'])).not.toBeNull();
  });
});

describe.runIf(process.platform === 'linux')('qstudio on Linux', () => {
  it('runs the command in a child with the tunables, passing its output and exit status through', () => {
    const record = path.join(tmp, 'plain.jsonl');
    const r = spawnSync(process.execPath, [BIN, 'no-such-command'], { encoding: 'utf8', env: recordingEnv(record) });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('qstudio: unknown command "no-such-command"');
    expect(r.stderr).toContain('Usage: qstudio <command>');
    const [launcher, command, ...more] = recorded(record);
    expect(more).toEqual([]);
    expect(launcher.tunables).toBeNull();
    expect(command.tunables).toBe(QSTUDIO_TUNABLES);
    expect(command.ppid).toBe(launcher.pid);
  });

  it("runs in one process under the caller's own tunables", () => {
    const record = path.join(tmp, 'own.jsonl');
    const r = spawnSync(process.execPath, [BIN, 'no-such-command'], {
      encoding: 'utf8',
      env: recordingEnv(record, 'glibc.malloc.arena_max=2'),
    });
    expect(r.status).toBe(1);
    expect(recorded(record).map((p) => p.tunables)).toEqual(['glibc.malloc.arena_max=2']);
  });

  it("a SIGTERM to the command's pid stops the child that calibrates, and the command ends by it", async () => {
    const record = path.join(tmp, 'term.jsonl');
    const calib = path.join(tmp, 'calib');
    fs.mkdirSync(calib);
    for (const f of ['grace_hopper.jpg', 'astronaut.png', 'chelsea.png', 'coffee.png'])
      fs.copyFileSync(path.join(IMAGES, 'photos', f), path.join(calib, f));
    const child = spawn(
      process.execPath,
      [
        BIN,
        'calibrate',
        path.join(MODELS, 'yolox-nano.onnx'),
        '--calib',
        calib,
        '--calibration-method',
        'Entropy',
        '--preprocess',
        'yolo',
        '-o',
        path.join(tmp, 'ranges.json'),
      ],
      { env: recordingEnv(record), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.on('exit', (code, signal) => resolve({ code, signal })),
    );
    await new Promise<void>((resolve) =>
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        if (/calibrating/.test(stderr)) resolve();
      }),
    );
    child.kill('SIGTERM');
    const { code, signal } = await ended;
    // The command's own handler exits with 143 where a session folder exists; otherwise SIGTERM ends it.
    expect(code === 143 || signal === 'SIGTERM').toBe(true);
    const [, command] = recorded(record);
    expect(command.ppid).toBe(child.pid);
    expect(fs.existsSync(`/proc/${command.pid}`)).toBe(false);
  }, 60_000);
});
