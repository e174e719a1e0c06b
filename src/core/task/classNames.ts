/**
 * Class names a head can carry: COCO's 80 detection classes in the contiguous order YOLOX and
 * Ultralytics train on, and the names Ultralytics writes in its metadata ("{0: 'person', 1: …}").
 */

export const COCO_80: readonly string[] = [
  'person',
  'bicycle',
  'car',
  'motorcycle',
  'airplane',
  'bus',
  'train',
  'truck',
  'boat',
  'traffic light',
  'fire hydrant',
  'stop sign',
  'parking meter',
  'bench',
  'bird',
  'cat',
  'dog',
  'horse',
  'sheep',
  'cow',
  'elephant',
  'bear',
  'zebra',
  'giraffe',
  'backpack',
  'umbrella',
  'handbag',
  'tie',
  'suitcase',
  'frisbee',
  'skis',
  'snowboard',
  'sports ball',
  'kite',
  'baseball bat',
  'baseball glove',
  'skateboard',
  'surfboard',
  'tennis racket',
  'bottle',
  'wine glass',
  'cup',
  'fork',
  'knife',
  'spoon',
  'bowl',
  'banana',
  'apple',
  'sandwich',
  'orange',
  'broccoli',
  'carrot',
  'hot dog',
  'pizza',
  'donut',
  'cake',
  'chair',
  'couch',
  'potted plant',
  'bed',
  'dining table',
  'toilet',
  'tv',
  'laptop',
  'mouse',
  'remote',
  'keyboard',
  'cell phone',
  'microwave',
  'oven',
  'toaster',
  'sink',
  'refrigerator',
  'book',
  'clock',
  'vase',
  'scissors',
  'teddy bear',
  'hair drier',
  'toothbrush',
];

/** Ultralytics' metadata `names` ("{0: 'person', 1: 'bicycle'}") as a list; null when it does not read as one. */
export function parseNamesMetadata(text: string | undefined): string[] | null {
  if (!text) return null;
  const entries = [...text.matchAll(/(\d+)\s*:\s*(['"])(.*?)\2/g)].map((m) => [Number(m[1]), m[3]] as const);
  if (entries.length === 0) return null;
  const names: string[] = [];
  for (const [i, name] of entries) names[i] = name;
  return names.length === entries.length ? names : null;
}

/** "dog" for label 16 with COCO's names, "class 16" without names. */
export function className(names: readonly string[] | null, label: number): string {
  return names?.[label] ?? `class ${label}`;
}
