/**
 * The qstudio command line as a user runs it: `node bin/qstudio.js …` in a child process, so the CLI
 * tests check real exit codes and printed text. One helper for every CLI test.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const BIN = path.resolve(import.meta.dirname, '../../bin/qstudio.js');

export interface QstudioRun {
  /** The exit code (null when the process was killed). */
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `qstudio ...args` to completion. */
export function qstudio(...args: string[]): QstudioRun {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
