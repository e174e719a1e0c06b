/**
 * The image files of a folder, in a stable order, for calibration from the command line.
 *
 * Calibration results must not depend on the file system's listing order, so names are sorted by
 * code unit (not locale). Files count as images by extension (.jpg, .jpeg, .png, any case); the
 * content is checked later, when decoding. Everything else (other files, subfolders, hidden files)
 * is skipped and counted, so the command line can say "12 images, 3 other files ignored". Not
 * recursive.
 */
import fs from 'node:fs';
import path from 'node:path';
import { DataFolderError } from './errors.ts';

export const IMAGE_EXTENSIONS = ['.jpg', '.jpeg', '.png'] as const;

export interface ImageFileList {
  /** Paths (the folder joined with each name), sorted by name. */
  files: string[];
  /** Entries skipped: files of other types and subfolders. */
  ignored: number;
}

/** Whether a file name has an image extension (case-insensitive). */
export function isImageFileName(name: string): boolean {
  return (IMAGE_EXTENSIONS as readonly string[]).includes(path.extname(name).toLowerCase());
}

/** The entries of `dir`; DataFolderError naming it as "the `what` folder" when it cannot be listed. */
export function readFolderEntries(dir: string, what: string): fs.Dirent[] {
  try {
    return fs.readdirSync(dir, { withFileTypes: true });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'does not exist'
        : code === 'ENOTDIR'
          ? 'is not a folder'
          : `cannot be listed (${code ?? 'error'})`;
    throw new DataFolderError(`The ${what} folder ${dir} ${why}.`);
  }
}

/** The JPEG and PNG files directly inside `dir`, sorted; throws DataFolderError naming the folder. */
export function listImageFiles(dir: string): ImageFileList {
  const entries = readFolderEntries(dir, 'image');
  const names: string[] = [];
  let ignored = 0;
  for (const entry of entries) {
    let isFile = entry.isFile();
    if (entry.isSymbolicLink()) {
      try {
        isFile = fs.statSync(path.join(dir, entry.name)).isFile();
      } catch {
        isFile = false; // a dangling link
      }
    }
    if (isFile && isImageFileName(entry.name)) names.push(entry.name);
    else ignored++;
  }
  names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return { files: names.map((n) => path.join(dir, n)), ignored };
}
