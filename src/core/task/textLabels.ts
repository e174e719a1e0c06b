/**
 * Text labels for a CTC recognizer: the expected text of each image, from a lines file ("name<TAB>text", as
 * PaddleOCR's label files) or a CSV ("name,text"), and the recognizer's dictionary that turns its class ids into
 * characters (class 0 the CTC blank, then one character a line, and a space last when the model has one more
 * class: PaddleOCR's use_space_char). Anything impossible — a label naming no image, an image labelled twice, a
 * dictionary of another size than the model's classes — is a TaskLabelError naming the file and the line.
 */
import { editDistance } from '../editDistance.ts';
import { TaskLabelError } from './errors.ts';
import type { ImageSizeByName, LabelSet } from './labels.ts';

/** Class id → character (index 0 the blank, ''), for a model scoring `classCount` classes. */
export function textDictionary(source: string, lines: readonly string[], classCount: number): string[] {
  const keys = lines.length > 0 && lines[lines.length - 1] === '' ? lines.slice(0, -1) : [...lines];
  if (classCount === keys.length + 1) return ['', ...keys];
  if (classCount === keys.length + 2) return ['', ...keys, ' '];
  throw new TaskLabelError(
    `${source}: ${keys.length} characters, but the model scores ${classCount} classes (the blank, the characters, and a space where it has one more)`,
  );
}

/** The text of CTC class ids through a dictionary; an id the dictionary does not have is a TaskLabelError. */
export function idsToText(ids: readonly number[], dictionary: readonly string[]): string {
  let out = '';
  for (const id of ids) {
    if (id <= 0 || id >= dictionary.length)
      throw new TaskLabelError(`class ${id} is not in the dictionary (${dictionary.length - 1} characters)`);
    out += dictionary[id];
  }
  return out;
}

/** Each image's expected text from a lines file (tab-separated) or a CSV (the first comma separates). */
export function readTextLabels(source: string, text: string, images: readonly ImageSizeByName[]): LabelSet {
  const known = new Set(images.map((i) => i.name));
  const out = new Map<string, { kind: 'text'; text: string }>();
  const csv = /\.csv$/i.test(source);
  text.split(/\r?\n/).forEach((line, k) => {
    if (line.trim() === '') return;
    const cut = csv ? line.indexOf(',') : line.indexOf('\t');
    if (cut <= 0)
      throw new TaskLabelError(
        `${source}:${k + 1}: give "image${csv ? ',' : '<TAB>'}text" (got "${line.slice(0, 40)}")`,
      );
    const name = line.slice(0, cut).trim();
    const expected = line.slice(cut + 1).replace(/^"(.*)"$/, '$1');
    if (csv && k === 0 && /^(file|image|name)$/i.test(name)) return; // a header row
    if (!known.has(name)) throw new TaskLabelError(`${source}:${k + 1}: "${name}" names no image of the data`);
    if (out.has(name)) throw new TaskLabelError(`${source}:${k + 1}: "${name}" is labelled twice`);
    out.set(name, { kind: 'text', text: expected });
  });
  return out;
}

/** Lines read exactly as labelled and the character error rate (edit distance over the labels' characters). */
export function textAgainstLabels(pairs: readonly { readonly read: string; readonly label: string }[]): {
  sequence: number;
  cer: number;
} {
  let correct = 0,
    errors = 0,
    chars = 0;
  for (const { read, label } of pairs) {
    const a = [...label];
    const b = [...read];
    correct += +(read === label);
    errors += editDistance(a, b);
    chars += a.length;
  }
  return { sequence: pairs.length ? correct / pairs.length : NaN, cer: chars ? errors / chars : errors ? 1 : 0 };
}
