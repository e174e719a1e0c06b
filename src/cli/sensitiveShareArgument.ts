/**
 * `--tune-sensitive <share>`, shared by `qstudio ladder` and `qstudio quantize --finetune`: the share of the plain
 * model's noise power whose layers are fine-tuned (core/recovery/sensitiveLayers.ts), checked to lie in (0, 1].
 * Absent: undefined, every layer.
 */
import { isSensitiveShare } from '../core/recovery/sensitiveLayers.ts';
import { UsageError } from './usage.ts';

export function sensitiveShareArgument(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const share = Number(text);
  if (!isSensitiveShare(share)) throw new UsageError(`--tune-sensitive "${text}": give a share in (0, 1]`);
  return share;
}
