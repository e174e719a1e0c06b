/**
 * The CLI's session folder (model + hard-linked data files for onnxruntime-node) must not outlive the command: not
 * on a normal exit, and not when the user presses Ctrl-C or a batch scheduler sends SIGTERM. A real child process
 * makes the folder and is stopped by a real signal.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../../..');

/** Starts a process that makes a session folder, prints the model path in it, then waits for `stop`. */
function childWithFolder(stop: 'exit' | NodeJS.Signals): Promise<{ onnx: string; code: number | null }> {
  const script = `
    import { register } from 'tsx/esm/api';
    register();
    const { sessionModelFolder } = await import(${JSON.stringify(path.join(ROOT, 'src/cli/runtime/sessionFiles.ts'))});
    const { onnx } = sessionModelFolder({ bytes: new Uint8Array([8, 1]), externalData: [{ path: 'm.onnx.data', data: new Uint8Array(64) }] });
    process.stdout.write(onnx + '\\n');
    ${stop === 'exit' ? '' : 'setInterval(() => {}, 1000);'}
  `;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let onnx = '';
    child.stdout.on('data', (chunk: Buffer) => {
      onnx += chunk.toString();
      if (onnx.endsWith('\n') && stop !== 'exit') {
        expect(fs.existsSync(onnx.trim())).toBe(true); // the folder is there while the command runs
        child.kill(stop);
      }
    });
    child.on('error', reject);
    child.on('exit', (code) => resolve({ onnx: onnx.trim(), code }));
  });
}

describe('the session folder', () => {
  it('is removed when the command ends', async () => {
    const { onnx, code } = await childWithFolder('exit');
    expect(code).toBe(0);
    expect(onnx).toMatch(/qstudio-session-/);
    expect(fs.existsSync(path.dirname(path.dirname(onnx)))).toBe(false);
  }, 30_000);

  it.each([
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ] as const)(
    'is removed when the command is stopped by %s, which still ends it with status %i',
    async (signal, status) => {
      const { onnx, code } = await childWithFolder(signal);
      expect(onnx).toMatch(/qstudio-session-/);
      expect(code).toBe(status);
      expect(fs.existsSync(path.dirname(path.dirname(onnx)))).toBe(false);
    },
    30_000,
  );
});
