/**
 * Preprocessing's public face: the spec and its presets, resampling, image → tensor, and .npy
 * input files. Pure TypeScript (no DOM, no Node APIs): the page's workers and the CLI share it.
 */
export * from './errors.ts';
export * from './spec.ts';
export * from './presets.ts';
export * from './resize.ts';
export * from './toTensor.ts';
export * from './npy.ts';
export * from './npySamples.ts';
export * from './defaultDims.ts';
export * from './recognize.ts';
