/**
 * Inputs for the evaluation tests: the COCO photos, and the held-out ones the fidelity protocol judges
 * on (docs/NOTES.md: calibrate on the first 16, judge on the last 8). src/cli/images/imageFeed.ts turns them
 * into a model's feeds.
 */
import path from 'node:path';
import { listImageFiles } from '../../src/cli/images/listImages.ts';
import { IMAGES } from './fixtures.ts';

/** The 24 COCO photos, sorted by name as the command line lists them. */
export const COCO = listImageFiles(path.join(IMAGES, 'coco')).files;
/** COCO 17–24: the held-out half of the fidelity protocol. */
export const COCO_EVAL = COCO.slice(16, 24);
