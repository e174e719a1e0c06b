/** Task-level accuracy: heads recognised and decoded, COCO AP, agreement and label figures (see each module). */
export * from './boxes.ts';
export * from './nms.ts';
export * from './heads.ts';
export * from './outputs.ts';
export * from './errors.ts';
export * from './classNames.ts';
export * from './recognizeHead.ts';
export * from './decodeHead.ts';
export * from './cocoAp.ts';
export * from './boxChanges.ts';
export * from './segmentation.ts';
export * from './labels.ts';
export * from './taskEvaluation.ts';
export * from './taskReport.ts';
export * from './maskImage.ts';
export * from './headClasses.ts';
export * from './taskTarget.ts';
