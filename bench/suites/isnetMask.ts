/**
 * Suite "isnet-mask": imgly's ISNet background remover (float16, 1024 × 1024, fetched with npm pack, too big for CI)
 * judged as a segmentation model by `qstudio evaluate --task segment`: mIoU of the quantized model's thresholded mask
 * against the float model's, on held-out COCO photos, at onnxruntime 'all' and 'basic' (cases/isnetMask.ts).
 */
import { runCase, type Row, type Suite } from '../harness.ts';

export const isnetMaskSuite: Suite = {
  name: 'isnet-mask',
  title:
    "ISNet's mask judged by mIoU: quantized by the command line on 4 COCO photos, the mask cut at 0.5 on 4 held-out photos, quantized against float",
  columns: [
    ['model', 'model'],
    ['preset', 'preset'],
    ['head', 'task head'],
    ['data', 'calibration / held out'],
    ['quantized', 'nodes quantized'],
    ['miouAll', 'mIoU all'],
    ['miouBasic', 'mIoU basic'],
    ['foregroundIouAll', 'foreground IoU all'],
    ['foregroundIouBasic', 'foreground IoU basic'],
    ['perImageBasic', 'mIoU per image, basic (worst first)'],
    ['cosineAll', 'output cosine all'],
    ['cosineBasic', 'output cosine basic'],
    ['quantizeSeconds', 'quantize s'],
    ['evaluateSeconds', 'evaluate s'],
  ],
  async run() {
    const rows: Row[] = [];
    for (const preset of ['A8W8']) rows.push(await runCase('cases/isnetMask.ts', [preset]));
    return rows;
  },
};
