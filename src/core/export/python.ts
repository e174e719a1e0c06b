/**
 * Python source literals for the exported snippets: strings, numbers, booleans, None, lists and tuples
 * written so that `ast.literal_eval` reads back exactly the value given. Pure text building; it knows
 * nothing about quantization.
 */

/** A Python value: what JSON holds, plus tuples and names the script imports (QuantType.QInt16). */
export type PyValue = string | number | boolean | null | PyValue[] | PyTuple | PyName | { [key: string]: PyValue };

/** A dotted name written as is (an enum member the script imports), e.g. QuantType.QInt16. */
export class PyName {
  constructor(readonly name: string) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/.test(name))
      throw new Error(`not a Python name: ${name}`);
  }
}

/** A tuple (Quark's subgraphs_to_exclude takes ([starts], [ends]) tuples). */
export class PyTuple {
  constructor(readonly items: PyValue[]) {}
}

/** `value` as Python source; lists longer than `wrapAt` items go one item per line at `indent`. */
export function py(value: PyValue, indent = '', wrapAt = 6): string {
  if (value === null) return 'None';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return value > 0 ? 'float("inf")' : value < 0 ? 'float("-inf")' : 'float("nan")';
    return String(value);
  }
  // JSON string escapes (\", \\, \n, \uXXXX) mean the same in a Python string literal.
  if (typeof value === 'string') return JSON.stringify(value);
  if (value instanceof PyName) return value.name;
  const inner = indent + '    ';
  if (value instanceof PyTuple) {
    const items = value.items.map((v) => py(v, indent, wrapAt));
    return items.length === 1 ? `(${items[0]},)` : `(${items.join(', ')})`;
  }
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    const items = value.map((v) => py(v, inner, wrapAt));
    const wrap = value.length > wrapAt || value.some((v) => v instanceof PyTuple);
    return wrap ? `[\n${items.map((s) => `${inner}${s},`).join('\n')}\n${indent}]` : `[${items.join(', ')}]`;
  }
  const entries = Object.entries(value);
  if (entries.length === 0) return '{}';
  return `{\n${entries.map(([k, v]) => `${inner}${JSON.stringify(k)}: ${py(v, inner, wrapAt)},`).join('\n')}\n${indent}}`;
}
