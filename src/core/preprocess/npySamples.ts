/**
 * Which model input and which sample a .npy file is, by its path: the convention the page and the command line
 * share. With one model input every file is a sample. With several, a file belongs to the input its name starts
 * with (the longest such input name) and the rest of its path names the sample, so `input_ids_0.npy` and
 * `attention_mask_0.npy` (or `s0/input_ids.npy` and `s0/attention_mask.npy`) form sample "0" (or "s0/").
 */

const NPY = /\.npy$/i;

/** The input a .npy path belongs to and the sample key, or null when its name starts with no input name. */
export function npyTarget(path: string, inputs: readonly string[]): { input: string; sample: string } | null {
  if (inputs.length === 1) return { input: inputs[0], sample: path };
  const slash = path.lastIndexOf('/');
  const dir = path.slice(0, slash + 1);
  const base = path.slice(slash + 1).replace(NPY, '');
  const input = inputs.filter((name) => base.startsWith(name)).sort((a, b) => b.length - a.length)[0];
  if (input === undefined) return null;
  const rest = base.slice(input.length).replace(/^[._-]+/, '');
  return { input, sample: `${dir}${rest}` || '(unnamed)' };
}
