// The qstudio process's memory allocator settings: on Linux (glibc), the command runs in a child process whose
// malloc keeps freed memory for reuse instead of handing each large block back to the system. Calibration and
// judging copy hundreds of MB of outputs a run (onnxruntime-node hands each output back in a fresh buffer); with
// glibc's defaults every such buffer is a new mmap whose pages fault in again. Nothing written changes.
// Measured in bench/README.md ("Calibration of a large input"): ISNet 1024², A8W8 and XINT8.
import { spawn } from 'node:child_process';

/**
 * glibc's malloc: no block served by mmap (each large buffer comes from the heap, where a freed one is reused),
 * and a freed heap top never trimmed back to the system while the command runs.
 */
export const QSTUDIO_TUNABLES = 'glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=4294967295';

/**
 * The environment to run the command in, or null to run it in this process: on Linux where the caller has set no
 * glibc tunables of their own (theirs are kept as they are, and the child, which has ours, runs the command itself),
 * and not under a debugger (`--inspect`: one process to attach to).
 */
export function allocatorEnvironment(env, platform, execArgv = []) {
  if (platform !== 'linux' || env.GLIBC_TUNABLES !== undefined) return null;
  if (execArgv.some((a) => a.startsWith('--inspect'))) return null;
  return { ...env, GLIBC_TUNABLES: QSTUDIO_TUNABLES };
}

const FORWARDED = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/**
 * Runs `script` with `args` again in a child node (the same node options) under `env`, and ends this process as the
 * child ends: its exit status, or the signal that stopped it. The child has a process group of its own, so a signal
 * reaches it once: a terminal's Ctrl-C (sent to this process's group) and a `kill` of this process are passed on.
 */
export function runInChild(script, args, env) {
  const child = spawn(process.execPath, [...process.execArgv, script, ...args], {
    env,
    stdio: 'inherit',
    detached: true,
  });
  const forwards = FORWARDED.map((signal) => {
    const forward = () => child.kill(signal);
    process.on(signal, forward);
    return [signal, forward];
  });
  child.on('error', (e) => {
    process.stderr.write(`qstudio: could not start node: ${e.message}\n`);
    process.exit(1);
  });
  child.on('exit', (code, signal) => {
    for (const [name, forward] of forwards) process.off(name, forward);
    if (signal) process.kill(process.pid, signal);
    else process.exit(code ?? 1);
  });
}
