import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isImageFileName, listImageFiles } from './listImages.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'qs-list-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('listImageFiles', () => {
  it('lists .jpg, .jpeg and .png files of any case, sorted by name, and counts the rest', () => {
    for (const name of ['b.PNG', 'a.jpg', 'C.jpeg', 'notes.txt', 'photo.JPG', '.DS_Store', 'a.gif', 'png'])
      fs.writeFileSync(path.join(tmp, name), '');
    fs.mkdirSync(path.join(tmp, 'sub.png'));
    fs.symlinkSync(path.join(tmp, 'a.jpg'), path.join(tmp, 'link.png'));
    fs.symlinkSync(path.join(tmp, 'nowhere.png'), path.join(tmp, 'dangling.png'));
    const list = listImageFiles(tmp);
    // Code-unit order: upper case before lower case, independent of locale.
    expect(list.files.map((f) => path.basename(f))).toEqual(['C.jpeg', 'a.jpg', 'b.PNG', 'link.png', 'photo.JPG']);
    expect(list.files[0]).toBe(path.join(tmp, 'C.jpeg'));
    expect(list.ignored).toBe(6); // notes.txt, .DS_Store, a.gif, png, sub.png/, dangling.png
  });

  it('throws DataFolderError naming a missing folder or a file', () => {
    expect(() => listImageFiles(path.join(tmp, 'nope'))).toThrow(
      expect.objectContaining({ name: 'DataFolderError', message: expect.stringMatching(/nope does not exist/) }),
    );
    expect(() => listImageFiles(path.join(tmp, 'a.jpg'))).toThrow(
      expect.objectContaining({ name: 'DataFolderError', message: expect.stringMatching(/is not a folder/) }),
    );
  });

  it('judges names by extension only', () => {
    expect(['x.jpg', 'x.JpEg', 'x.png', 'x.tar.png'].every(isImageFileName)).toBe(true);
    expect(['x.jpg.txt', 'jpg', 'x.webp', 'x.'].some(isImageFileName)).toBe(false);
  });
});
