/**
 * ONNX messages decoded by interpreting the schema (proto/onnx.json) over wireReader.ts: the one decoder of
 * .onnx files and serialized tensors, on the page and in the workers alike.
 *
 * Why not protobufjs's decode: it compiles a decoder per message with `new Function`, which the page's content
 * security policy forbids, so the page could not read a model at all and every first draw paid a round trip
 * to a worker. This one compiles nothing: each message type becomes a table of its fields, read in a loop.
 *
 * The objects it makes are the ones protobufjs makes, so the rest of the code (and protobufjs's encoder) cannot
 * tell them apart: every repeated field an own array (empty when absent); present singular fields own
 * properties; absent ones fall back to defaults on the type's prototype (0, '', null for a message, frozen
 * empty arrays for bytes and repeated fields); a oneof's name (`value`) as a prototype accessor, and setting
 * one of its members removes the others; proto2's closed enums drop unknown values; a message field seen twice
 * is merged; unknown fields are skipped. decodeSchema.test.ts pins this against protobufjs on every fixture
 * model, ONNX's test corpus, and cut and damaged files (same objects, or the same error).
 */
import schema from './proto/onnx.json';
import { RECURSION_LIMIT, WireReader } from './wireReader.ts';

/** How a field's values are read (the kinds the ONNX schema uses; a schema with another fails at load, loudly). */
type Scalar = 'string' | 'bytes' | 'int32' | 'int64' | 'uint64' | 'float' | 'double' | 'enum';

interface FieldReader {
  name: string;
  repeated: boolean;
  /** The scalar kind, or null for a message. */
  scalar: Scalar | null;
  /** The wire type of one value (0 varint, 1 fixed64, 2 length-delimited, 5 fixed32). */
  wireType: number;
  /** For a message field. */
  message: MessageReader | null;
  /** For an enum field: its defined values (closed enums keep only these). */
  enumValues: Set<number> | null;
  /** The other members of this field's oneof: removed when this one is set. */
  oneofSiblings: string[] | null;
  /** For a string field: read through the decode's table of equal strings (not a node's own name, nor docs). */
  interned: boolean;
}

interface MessageReader {
  name: string;
  /** Fields by number (sparse). */
  byNumber: (FieldReader | undefined)[];
  repeatedNames: string[];
  prototype: object;
}

interface SchemaNamespace {
  nested?: Record<string, SchemaNamespace>;
  fields?: Record<string, { type: string; id: number; rule?: string }>;
  oneofs?: Record<string, { oneof: string[] }>;
  values?: Record<string, number>;
}

const WIRE_TYPES: Record<Exclude<Scalar, 'enum'>, number> = {
  string: 2,
  bytes: 2,
  int32: 0,
  int64: 0,
  uint64: 0,
  float: 5,
  double: 1,
};
const DEFAULTS: Record<Exclude<Scalar, 'enum'>, unknown> = {
  string: '',
  bytes: Object.freeze([]),
  int32: 0,
  int64: 0,
  uint64: 0,
  float: 0,
  double: 0,
};
const EMPTY_ARRAY = Object.freeze([]);
/**
 * String fields whose values are seldom equal to another's: read without the decode's table of equal strings
 * (wireReader.ts string), which they would only fill. Tensor names and op types are shared; a node's name is its own.
 */
const UNSHARED_STRINGS = new Set(['onnx.NodeProto.name']);

/** The schema's namespaces by full name ('onnx.TensorProto'), so types can be looked up as protobuf scopes them. */
function namespaces(root: SchemaNamespace): Map<string, SchemaNamespace> {
  const out = new Map<string, SchemaNamespace>();
  const visit = (ns: SchemaNamespace, prefix: string) => {
    for (const [name, child] of Object.entries(ns.nested ?? {})) {
      const full = prefix ? `${prefix}.${name}` : name;
      out.set(full, child);
      visit(child, full);
    }
  };
  visit(root, '');
  return out;
}

/** Builds the readers of every message type reachable from the schema. */
function compile(root: SchemaNamespace): Map<string, MessageReader> {
  const all = namespaces(root);
  const readers = new Map<string, MessageReader>();
  const resolve = (type: string, scope: string): string => {
    if (type.startsWith('.')) return type.slice(1);
    for (let s = scope; ; s = s.slice(0, Math.max(0, s.lastIndexOf('.')))) {
      const candidate = s ? `${s}.${type}` : type;
      if (all.has(candidate)) return candidate;
      if (!s) throw new Error(`the ONNX schema names an unknown type ${type} in ${scope}`);
    }
  };
  // Every message first (fields refer to each other, recursively), then their fields.
  for (const [name, ns] of all) {
    if (ns.fields) readers.set(name, { name, byNumber: [], repeatedNames: [], prototype: {} });
  }
  for (const [name, reader] of readers) {
    const ns = all.get(name)!;
    const prototype = reader.prototype as Record<string, unknown>;
    const oneofOf = new Map<string, string[]>();
    for (const [oneofName, { oneof }] of Object.entries(ns.oneofs ?? {})) {
      for (const member of oneof) oneofOf.set(member, oneof);
      // protobufjs's accessor: the last own member that holds a value; setting it keeps only that member.
      Object.defineProperty(prototype, oneofName, {
        get(this: Record<string, unknown>) {
          const keys = Object.keys(this);
          for (let i = keys.length - 1; i > -1; --i)
            if (oneof.includes(keys[i]) && this[keys[i]] !== undefined && this[keys[i]] !== null) return keys[i];
          return undefined;
        },
        set(this: Record<string, unknown>, value: string) {
          for (const member of oneof) if (member !== value) delete this[member];
        },
      });
    }
    for (const [fieldName, field] of Object.entries(ns.fields!)) {
      const repeated = field.rule === 'repeated';
      const basic = field.type in WIRE_TYPES ? (field.type as Exclude<Scalar, 'enum'>) : null;
      let message: MessageReader | null = null;
      let enumValues: Set<number> | null = null;
      let defaultValue: unknown;
      if (basic) defaultValue = DEFAULTS[basic];
      else {
        const target = resolve(field.type, name);
        const type = all.get(target)!;
        if (type.values) {
          enumValues = new Set(Object.values(type.values));
          defaultValue = Object.values(type.values)[0];
        } else {
          message = readers.get(target)!;
          defaultValue = null;
        }
      }
      const siblings = oneofOf.get(fieldName);
      const fieldReader: FieldReader = {
        name: fieldName,
        repeated,
        scalar: message ? null : (basic ?? 'enum'),
        wireType: message ? 2 : basic ? WIRE_TYPES[basic] : 0,
        message,
        enumValues,
        oneofSiblings: siblings ? siblings.filter((s) => s !== fieldName) : null,
        interned: !UNSHARED_STRINGS.has(`${name}.${fieldName}`) && fieldName !== 'doc_string',
      };
      reader.byNumber[field.id] = fieldReader;
      if (repeated) reader.repeatedNames.push(fieldName);
      prototype[fieldName] = repeated ? EMPTY_ARRAY : defaultValue;
    }
  }
  return readers;
}

const readers = compile(schema as SchemaNamespace);

function readScalar(r: WireReader, scalar: Scalar, interned: boolean): unknown {
  switch (scalar) {
    case 'string':
      return r.string(interned);
    case 'bytes':
      return r.bytes();
    case 'int32':
    case 'enum':
      return r.int32();
    case 'int64':
      return r.int64();
    case 'uint64':
      return r.int64(true);
    case 'float':
      return r.float();
    case 'double':
      return r.double();
  }
}

/** Reads a packed run of numbers into `array`. */
function readPacked(r: WireReader, scalar: Scalar, array: number[]): void {
  switch (scalar) {
    case 'int64':
      r.int64s(array);
      break;
    case 'uint64':
      r.int64s(array, true);
      break;
    case 'float':
      r.fixedFloats(array, 4);
      break;
    case 'double':
      r.fixedFloats(array, 8);
      break;
    default:
      r.int32s(array);
  }
}

const PACKABLE = new Set<Scalar>(['int32', 'int64', 'uint64', 'float', 'double', 'enum']);

/**
 * The own array of a repeated field, made on its first value when absent repeated fields are left to the
 * prototype's frozen empty array (a read-only decode).
 */
function ownArray(m: Record<string, unknown>, name: string): unknown[] {
  const array = m[name] as unknown[];
  if (array !== (EMPTY_ARRAY as unknown)) return array;
  const own: unknown[] = [];
  m[name] = own;
  return own;
}

/**
 * Reads one message: to the end of the input, or `length` bytes; merged into `into` when given. `readOnly`: a
 * repeated field gets its own array only when the bytes hold a value of it (see decodeMessage).
 */
function readMessage(
  r: WireReader,
  type: MessageReader,
  length: number | undefined,
  depth: number,
  readOnly: boolean,
  into?: Record<string, unknown>,
): Record<string, unknown> {
  if (depth > RECURSION_LIMIT) throw new Error('max depth exceeded');
  let end: number;
  let outer = 0;
  if (length === undefined) end = r.len;
  else {
    end = r.pos + length;
    if (end > r.len) throw new RangeError('index out of range');
    outer = r.len;
    r.len = end;
  }
  let m = into;
  if (!m) {
    m = Object.create(type.prototype) as Record<string, unknown>;
    if (!readOnly) for (const name of type.repeatedNames) m[name] = [];
  }
  while (r.pos < end) {
    const tag = r.tag();
    const wireType = tag & 7;
    const number = tag >>> 3;
    const field = type.byNumber[number];
    if (field) {
      const { name, scalar } = field;
      if (field.repeated) {
        if (scalar !== null && wireType === 2 && PACKABLE.has(scalar)) {
          if (scalar === 'enum') {
            // Repeated closed enums would drop unknown values one by one; the ONNX schema has none.
            throw new Error(`packed enum field ${type.name}.${name} is not supported`);
          }
          readPacked(r, scalar, ownArray(m, name) as number[]);
          continue;
        }
        if (wireType === field.wireType) {
          ownArray(m, name).push(
            scalar === null
              ? readMessage(r, field.message!, r.size(), depth + 1, readOnly)
              : readScalar(r, scalar, field.interned),
          );
          continue;
        }
      } else if (wireType === field.wireType) {
        if (scalar === null) {
          const existing = Object.prototype.hasOwnProperty.call(m, name)
            ? (m[name] as Record<string, unknown> | null)
            : null;
          m[name] = readMessage(r, field.message!, r.size(), depth + 1, readOnly, existing ?? undefined);
        } else if (scalar === 'enum') {
          const value = r.int32();
          if (field.enumValues!.has(value)) m[name] = value;
          continue;
        } else m[name] = readScalar(r, scalar, field.interned);
        if (field.oneofSiblings) for (const other of field.oneofSiblings) delete m[other];
        continue;
      }
    }
    r.skipType(wireType, depth, number);
  }
  if (length !== undefined) {
    if (r.pos !== end) throw new RangeError('index out of range');
    r.len = outer;
  }
  fitArrays(m, type);
  return m;
}

/**
 * Each short repeated field of `m` copied into an array of its own length: one that grew by push keeps room for 17
 * values (V8 grows an empty array so), and a decoded model keeps them all (a node's 3 inputs and 1 output, a tensor's
 * dims: some 15 MB of empty slots on a 67,000-node QDQ file, copied by every garbage collection it survives).
 */
function fitArrays(m: Record<string, unknown>, type: MessageReader): void {
  for (const name of type.repeatedNames) {
    const array = m[name] as unknown[];
    if (array.length > 0 && array.length < FIT_BELOW) m[name] = array.slice();
  }
}
const FIT_BELOW = 17;

/** The repeated fields of one message of the ONNX schema ('onnx.NodeProto', …): a decoded message has each as an array. */
export function repeatedFields(typeName: string): readonly string[] {
  const type = readers.get(typeName);
  if (!type) throw new Error(`the ONNX schema has no message ${typeName}`);
  return type.repeatedNames;
}

/**
 * Decodes one message of the ONNX schema ('onnx.ModelProto', 'onnx.TensorProto', …) from its bytes. `readOnly`: for
 * messages only read, never edited (the split view's files): an absent repeated field is not given an empty array
 * of its own but reads the prototype's frozen one, as protobufjs's own defaults do. A 67,000-node QDQ model holds
 * some 800,000 absent repeated fields (nine a TensorProto, five a NodeProto); making and keeping them is a third of
 * its decode.
 */
export function decodeMessage<T>(typeName: string, bytes: Uint8Array, readOnly = false): T {
  const type = readers.get(typeName);
  if (!type) throw new Error(`the ONNX schema has no message ${typeName}`);
  return readMessage(new WireReader(bytes), type, undefined, 0, readOnly) as T;
}
