/**
 * Models checked against onnxruntime-node before anything is reported about them: a model the studio wrote must
 * load at onnxruntime's default options (graph optimization 'all', what a user's session gets) and at 'basic'
 * (the studio's own measurements), or the command fails with WrittenModelRefusedError; a model a user gives
 * (evaluate's two files) that onnxruntime refuses is an InferenceError that names the file and says why, not a
 * stack trace from inside onnxruntime.
 */
import path from 'node:path';
import { WrittenModelRefusedError } from '../../core/onnx/index.ts';
import { InferenceError } from '../../core/calibrate/errors.ts';
import { createSession, REFUSED, runtimeReason, type SessionOptimization } from './ortNode.ts';

/** Opens the model file at `level` and releases it; the reason onnxruntime gives when it refuses, else null. */
export async function refusal(file: string, level: SessionOptimization): Promise<string | null> {
  try {
    const session = await createSession(file, 1, level, false);
    await session.release();
    return null;
  } catch (e) {
    return runtimeReason(e).replace(REFUSED, '').trim();
  }
}

/** A written model loads at onnxruntime's default options and at 'basic', or WrittenModelRefusedError. */
export async function checkWrittenModel(file: string): Promise<void> {
  for (const level of ['all', 'basic'] as const) {
    const reason = await refusal(file, level);
    if (reason === null) continue;
    const options = level === 'all' ? "its default options (graph optimization 'all')" : "graph optimization 'basic'";
    throw new WrittenModelRefusedError(
      `${path.basename(file)} was written, but onnxruntime refuses to load it at ${options}: ${reason}. ` +
        "Nothing else was reported as done; the file is kept for inspection. This is a fault of the studio's writer: please report it with the source model.",
    );
  }
}

/** A model file the user gave loads in onnxruntime at 'basic' (how the studio runs it), or InferenceError naming it. */
export async function checkGivenModel(file: string, role: string): Promise<void> {
  const reason = await refusal(file, 'basic');
  if (reason !== null)
    throw new InferenceError(`onnxruntime refuses to load the ${role} ${path.basename(file)}: ${reason}`);
}
