/**
 * Files with their paths relative to what the user gave: a drop of files or folders (a folder is walked through
 * its entries, as `dataTransfer.files` lists a dropped folder as one empty file), or a file input's choice (a
 * folder chosen with webkitdirectory gives each file its `webkitRelativePath`, "labels/3/a.png").
 */

export interface PathedFile {
  /** "a.txt" for a file given alone, "labels/3/a.png" for one inside a given folder. */
  readonly path: string;
  readonly file: File;
}

/** The files of a file input, with their folder paths when a folder was chosen. */
export function chosenFiles(list: FileList | null): PathedFile[] {
  return Array.from(list ?? []).map((file) => ({ path: file.webkitRelativePath || file.name, file }));
}

function entryFile(entry: FileSystemFileEntry): Promise<File> {
  return new Promise((resolve, reject) => entry.file(resolve, reject));
}

/** Every entry of a folder (readEntries gives them in batches until an empty one). */
async function folderEntries(folder: FileSystemDirectoryEntry): Promise<FileSystemEntry[]> {
  const reader = folder.createReader();
  const all: FileSystemEntry[] = [];
  for (;;) {
    const batch = await new Promise<FileSystemEntry[]>((resolve, reject) => reader.readEntries(resolve, reject));
    if (!batch.length) return all;
    all.push(...batch);
  }
}

async function walk(entry: FileSystemEntry, depth: number): Promise<PathedFile[]> {
  const path = entry.fullPath.replace(/^\//, '');
  if (entry.isFile) return [{ path, file: await entryFile(entry as FileSystemFileEntry) }];
  if (!entry.isDirectory || depth > 3) return [];
  const children = await folderEntries(entry as FileSystemDirectoryEntry);
  return (await Promise.all(children.map((c) => walk(c, depth + 1)))).flat();
}

/** The files of a drop, folders walked (three levels deep at most). Read the entries before awaiting anything. */
export async function droppedFiles(data: DataTransfer): Promise<PathedFile[]> {
  const entries = Array.from(data.items ?? [])
    .map((item) => (item.kind === 'file' ? item.webkitGetAsEntry?.() : null))
    .filter((e): e is FileSystemEntry => !!e);
  if (!entries.length) return chosenFiles(data.files);
  return (await Promise.all(entries.map((e) => walk(e, 0)))).flat();
}
