/**
 * The protobufjs reflection root of the ONNX schema: the one place that loads protobufjs and the
 * generated schema in proto/. decode.ts and encode.ts use it; nothing else should.
 *
 * protobufjs is configured without Long: 64-bit integers (dims, int64 attributes) become plain
 * numbers, exact up to 2^53, which covers every shape and attribute a real model carries. Beyond
 * that, values saturate at the int64 limits when written, so the sentinels exporters use (Slice's
 * `ends = INT64_MAX`, `INT64_MIN`) survive a round trip: 2^63 - 1 reads as 2^63 and writes back as
 * 2^63 - 1 rather than wrapping to -2^63.
 */
import protobuf from 'protobufjs/light.js';
import schema from './proto/onnx.json';

protobuf.util.Long = undefined as unknown as typeof protobuf.util.Long;
protobuf.configure();

const LongBits = protobuf.util.LongBits as unknown as {
  new (lo: number, hi: number): unknown;
  fromNumber(value: number): unknown;
};
const unsaturatedFromNumber = LongBits.fromNumber;
LongBits.fromNumber = (value: number) => {
  if (value >= 2 ** 63) return new LongBits(0xffffffff, 0x7fffffff);
  if (value <= -(2 ** 63)) return new LongBits(0, 0x80000000);
  return unsaturatedFromNumber(value);
};

const root = protobuf.Root.fromJSON(schema as protobuf.INamespace);

/** The reflected onnx.ModelProto message type. */
export const ModelProtoType = root.lookupType('onnx.ModelProto');
/** The reflected onnx.TensorProto message type (used to write initializers in parts). */
export const TensorProtoType = root.lookupType('onnx.TensorProto');
/** The reflected onnx.GraphProto message type. */
export const GraphProtoType = root.lookupType('onnx.GraphProto');

export { protobuf };
