/**
 * Which element types the precision code converts between. The element type of every tensor comes from
 * the core's one inference (core/onnx/elementTypeInference.ts: what the file states, then each op's
 * schema rule); a tensor it cannot type is left alone.
 */
import { DataType } from '../onnx/index.ts';

/** Whether a DataType code is float32 or float16 (the precisions this module converts between). */
export function isConvertibleFloat(type: number | undefined): type is 1 | 10 {
  return type === DataType.FLOAT || type === DataType.FLOAT16;
}
