import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  buildGraphIndex,
  DataType,
  decode,
  encode,
  makeGraph,
  makeModel,
  makeNode,
  makeValueInfo,
  type ModelProto,
} from '../onnx/index.ts';
import { assignNodeIds } from '../onnx/nodeIds.ts';
import { ConfigError, validateConfig, type QuantConfig } from '../quantize/config.ts';
import { getPreset } from '../quantize/presets.ts';
import { quantizeModel } from '../quantize/quantizeModel.ts';
import { CONV_RELU_RANGES, convReluModel } from '../quantize/testModels.ts';
import { float32ToFloat16 } from '../halfFloat/float16.ts';
import {
  configDocumentFromJSON,
  configDocumentToJSON,
  ortSnippet,
  quarkSnippet,
  readConfigDocument,
  type NamedExclusion,
} from './index.ts';

const scratch = path.resolve(import.meta.dirname, '../../../bench/tmp/exclusions/export-test');
fs.mkdirSync(scratch, { recursive: true });

/**
 * Reads a snippet the way Python does: parses it (a syntax error fails the test), reads the exclusion lists
 * with ast.literal_eval, and, given a model file, runs the snippet's node-naming function on it.
 */
const READ_SNIPPET = `
import ast, json, sys
tree = ast.parse(sys.stdin.read())
out = {}
for node in tree.body:
    if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name) and node.targets[0].id.endswith("_TO_EXCLUDE"):
        out[node.targets[0].id] = ast.literal_eval(node.value)
    if isinstance(node, ast.FunctionDef) and node.name == "name_nodes_like_quant_studio" and len(sys.argv) > 1:
        import onnx
        scope = {}
        exec(compile(ast.Module(body=[node], type_ignores=[]), "snippet", "exec"), scope)
        model = onnx.load(sys.argv[1])
        scope[node.name](model)
        out["named"] = [n.name for n in model.graph.node]
print(json.dumps(out))
`;

function readSnippet(
  source: string,
  modelPath?: string,
): { SUBGRAPHS_TO_EXCLUDE?: [string[], string[]][]; NODES_TO_EXCLUDE?: string[]; named?: string[] } {
  const args = ['-c', READ_SNIPPET, ...(modelPath ? [modelPath] : [])];
  return JSON.parse(execFileSync('/usr/bin/python3', args, { input: source, encoding: 'utf8' }));
}

const pythonParses = (source: string) =>
  execFileSync('/usr/bin/python3', ['-c', 'import ast,sys; ast.parse(sys.stdin.read())'], {
    input: source,
    encoding: 'utf8',
  });

const options = {
  modelFile: 'tiny.onnx',
  inputs: [{ name: 'x', elemType: 'float32', shape: [1, 1, 2, 2] }],
  configName: 'XINT8',
};

/** convReluModel's nodes are unnamed: Conv_0 → Relu_1 → Exp_2 in the studio's ids. */
const withExclusions = (base: QuantConfig, fields: Partial<QuantConfig>) =>
  validateConfig({ ...JSON.parse(JSON.stringify(base)), ...fields });

describe('Quark and ONNX Runtime snippets', () => {
  const model = convReluModel();
  const index = buildGraphIndex(model.graph!);
  const config = withExclusions(getPreset('XINT8'), {
    subgraphsToExclude: [{ starts: ['Conv_0'], ends: ['Relu_1'] }],
    nodesToExclude: ['Exp_2'],
  });

  it('are Python that parses', () => {
    for (const preset of ['XINT8', 'A16W8', 'U8S8', 'S8S8_AAWS'] as const) {
      const c = withExclusions(getPreset(preset), { opTypesToExclude: ['Relu'] });
      expect(() => pythonParses(quarkSnippet(index, c, options))).not.toThrow();
      expect(() => pythonParses(ortSnippet(index, c, options))).not.toThrow();
    }
  });

  it("carry mixed precision as TensorQuantOverrides with each tool's type names", () => {
    const mixed = withExclusions(getPreset('A8W8'), {
      extraOptions: {
        ...getPreset('A8W8').extraOptions,
        TensorQuantOverrides: { y: [{ quant_type: 'int16' }], w: [{ quant_type: 'int16' }] },
      },
    });
    const ort = ortSnippet(index, mixed, options);
    const quark = quarkSnippet(index, mixed, options);
    expect(() => pythonParses(ort)).not.toThrow();
    expect(() => pythonParses(quark)).not.toThrow();
    expect(ort).toMatch(/"TensorQuantOverrides": \{\s+"y": \[\{\s+"quant_type": QuantType\.QInt16,/);
    expect(quark).toMatch(/"w": \[\{\s+"quant_type": ExtendedQuantType\.QInt16,/);
    expect(quark).toMatch(/from quark\.onnx import .*ExtendedQuantType/);
    // No overrides, no key.
    expect(ortSnippet(index, config, options)).not.toContain('TensorQuantOverrides');
  });

  it('pass saturation-safe weights as reduce_range, the nearest each tool has, and say so', () => {
    const safe = withExclusions(getPreset('U8S8'), { saturationSafeWeights: true });
    const ort = ortSnippet(index, safe, options);
    const quark = quarkSnippet(index, safe, options);
    expect(() => pythonParses(ort)).not.toThrow();
    expect(() => pythonParses(quark)).not.toThrow();
    expect(ort).toMatch(
      /reduce_range=True,\s+# saturation-safe weights .* are Quant Studio's: 7-bit weights everywhere are the nearest/,
    );
    expect(quark).toMatch(/settings\.reduce_range = True\s+# saturation-safe weights/);
    expect(ortSnippet(index, getPreset('U8S8'), options)).toMatch(/reduce_range=False,\n/);
  });

  it('pass Quark subgraphs as ([starts], [ends]) and single nodes by name, with the preset settings', () => {
    const source = quarkSnippet(index, config, options);
    expect(readSnippet(source)).toMatchObject({
      SUBGRAPHS_TO_EXCLUDE: [[['Conv_0'], ['Relu_1']]],
      NODES_TO_EXCLUDE: ['Exp_2'],
    });
    expect(source).toContain('quant_config = QConfig.get_default_config("XINT8")');
    expect(source).toContain('settings.calibrate_method = PowerOfTwoMethod.MinMSE');
    expect(source).toContain('settings.activation_type = QuantType.QInt8');
    expect(source).toContain('settings.enable_npu_cnn = True');
    expect(source).toMatch(/"ActivationSymmetric": True/);
    expect(source).toContain('settings.nodes_to_exclude = NODES_TO_EXCLUDE');
    expect(source).toContain('settings.subgraphs_to_exclude = SUBGRAPHS_TO_EXCLUDE');
  });

  it("reproduce the guide's FP16 workflow for a float16 model: Shapeshifter convert_fp16_to_fp32 on the chosen subgraphs, then VINT8 with QuantizeFP16", () => {
    const half = float32ToFloat16(model);
    const halfIndex = buildGraphIndex(half.graph!);
    const c = withExclusions(getPreset('VINT8'), {
      fp16SubgraphsToFp32: [{ starts: ['Conv_0'], ends: ['Relu_1'] }],
      subgraphsToExclude: [{ starts: ['Exp_2'], ends: ['Exp_2'] }],
    });
    const source = quarkSnippet(halfIndex, c, { ...options, configName: 'VINT8' });
    expect(() => pythonParses(source)).not.toThrow();
    expect(source).toContain('FP16_SUBGRAPHS_TO_FP32 = [[["Conv_0"], ["Relu_1"]]]');
    expect(source).toContain(
      '"onnx_convert_fp16_to_fp32": {"convert_fp16_to_fp32": True, "subgraphs_to_include": FP16_SUBGRAPHS_TO_FP32}',
    );
    expect(source).toContain('quantizer.quantize_model(CONVERTED_MODEL, QUANTIZED_MODEL, reader)');
    expect(source).toMatch(/"QuantizeFP16": True/);
    expect(source).toMatch(/"UseFP32Scale": False/);
    // A float32 model gets neither step 1 nor QuantizeFP16.
    const plain = quarkSnippet(index, config, options);
    expect(plain).not.toContain('convert_fp16_to_fp32');
    expect(plain).toMatch(/"QuantizeFP16": False/);
  });

  it('give ONNX Runtime every excluded node, subgraphs spelled out, and say what ORT lacks', () => {
    const source = ortSnippet(index, config, options);
    expect(readSnippet(source).NODES_TO_EXCLUDE).toEqual(['Conv_0', 'Relu_1', 'Exp_2']);
    expect(source).toContain('quantize_static(');
    expect(source).toMatch(/calibrate_method=CalibrationMethod\.MinMax,\s+# MinMSE is Quark's/);
    expect(source).toContain('class SampleReader(CalibrationDataReader)');
  });

  it('expand op-type exclusions to the nodes they select, for Quark too', () => {
    const c = withExclusions(getPreset('U8S8'), { opTypesToExclude: ['Relu', 'Exp'] });
    expect(readSnippet(quarkSnippet(index, c, options)).NODES_TO_EXCLUDE).toEqual(['Relu_1', 'Exp_2']);
  });

  it('name unnamed nodes as the studio’s quantized model names them, and name the float model’s nodes so first', () => {
    const modelPath = path.join(scratch, 'tiny.onnx');
    fs.writeFileSync(modelPath, encode(model));
    const read = readSnippet(quarkSnippet(index, config, options), modelPath);
    // The written model (the product's own quantizer, same config) has nodes of these names.
    const written = decode(encode(quantizeModel(model, CONV_RELU_RANGES, config).model));
    const writtenNames = new Set(written.graph!.node.map((n) => n.name));
    const snippetNames = [...read.NODES_TO_EXCLUDE!, ...read.SUBGRAPHS_TO_EXCLUDE!.flat(2)];
    expect(snippetNames.length).toBeGreaterThan(0);
    for (const name of snippetNames) expect(writtenNames).toContain(name);
    // The snippet's naming step, run by Python on the float file, gives the names the lists use.
    expect(read.named).toEqual(['Conv_0', 'Relu_1', 'Exp_2']);
  });

  it('name nodes in Python exactly as core/onnx/nodeIds.ts does, repeated and colliding names included', () => {
    const f = (n: string) => makeValueInfo(n, DataType.FLOAT, [1]);
    const tricky: ModelProto = makeModel(
      makeGraph({
        node: [
          makeNode('Relu', ['x'], ['a'], 'dup'),
          makeNode('Relu', ['a'], ['b'], 'dup'),
          makeNode('Relu', ['b'], ['c']),
          makeNode('Relu', ['c'], ['d'], 'Relu_2'),
          makeNode('Relu', ['d'], ['e'], 'keep'),
        ],
        input: [f('x')],
        output: [f('e')],
      }),
      { '': 13 },
    );
    const modelPath = path.join(scratch, 'tricky.onnx');
    fs.writeFileSync(modelPath, encode(tricky));
    const trickyIndex = buildGraphIndex(tricky.graph!);
    const read = readSnippet(ortSnippet(trickyIndex, getPreset('U8S8'), options), modelPath);
    expect(read.named).toEqual(assignNodeIds(tricky.graph!.node));
    expect(read.named).toEqual(['Relu_0', 'Relu_1', 'Relu_2_2', 'Relu_2', 'keep']);
  });

  it('leave the naming step out when every node has a name of its own', () => {
    const f = (n: string) => makeValueInfo(n, DataType.FLOAT, [1]);
    const named = buildGraphIndex(
      makeGraph({ node: [makeNode('Relu', ['x'], ['y'], 'act')], input: [f('x')], output: [f('y')] }),
    );
    const source = quarkSnippet(named, withExclusions(getPreset('A8W8'), { nodesToExclude: ['act'] }), {
      ...options,
      configName: 'A8W8',
    });
    expect(source).not.toContain('name_nodes_like_quant_studio');
    expect(source).toContain('quantize_model(FLOAT_MODEL, QUANTIZED_MODEL');
  });

  it('refuse an exclusion that names nothing, as the quantizer does', () => {
    const bad = withExclusions(getPreset('XINT8'), { nodesToExclude: ['Conv_9'] });
    expect(() => quarkSnippet(index, bad, options)).toThrow(expect.objectContaining({ name: 'ExclusionError' }));
    expect(() => ortSnippet(index, bad, options)).toThrow(expect.objectContaining({ name: 'ExclusionError' }));
  });

  it('carry the transformer rules and SmoothQuant with its alpha, and leave them out when off', () => {
    const on = validateConfig({
      ...JSON.parse(JSON.stringify(getPreset('A8W8'))),
      enableNpuTransformer: true,
      includeSq: true,
      extraOptions: { SmoothAlpha: 0.7 },
    });
    const quark = quarkSnippet(index, on, options);
    expect(quark).toMatch(/enable_npu_transformer = True/);
    expect(quark).toMatch(/include_sq = True/);
    expect(quark).toMatch(/"SmoothAlpha": 0\.7/);
    expect(ortSnippet(index, on, options)).toMatch(/"SmoothQuant": True[\s\S]*"SmoothQuantAlpha": 0\.7/);
    const off = getPreset('A8W8');
    expect(quarkSnippet(index, off, options)).not.toMatch(/include_sq|enable_npu_transformer|SmoothAlpha/);
    expect(ortSnippet(index, off, options)).not.toMatch(/SmoothQuant/);
    for (const c of [on, off]) expect(() => pythonParses(quarkSnippet(index, c, options))).not.toThrow();
  });
});

describe('the exported configuration file', () => {
  const entries: NamedExclusion[] = [
    { kind: 'subgraph', name: 'head', starts: ['Conv_0'], ends: ['Relu_1'] },
    { kind: 'nodes', name: 'the exp', nodes: ['Exp_2'] },
    { kind: 'opTypes', name: 'sigmoids', opTypes: ['Sigmoid'] },
  ];
  const studio = {
    model: 'tiny.onnx',
    settings: { preset: 'XINT8', perChannel: false, useRandomData: false },
    exclusions: entries,
  };

  it('holds the full config with the exclusions as config fields, and reads back the named entries', () => {
    const text = configDocumentToJSON(getPreset('XINT8'), studio);
    const json = JSON.parse(text);
    expect(json).toMatchObject({
      activationType: 'int8',
      nodesToExclude: ['Exp_2'],
      opTypesToExclude: ['Sigmoid'],
      subgraphsToExclude: [{ starts: ['Conv_0'], ends: ['Relu_1'] }],
      studio: { model: 'tiny.onnx', exclusions: entries },
    });
    const back = configDocumentFromJSON(text);
    expect(back.studio).toEqual(studio);
    expect(back.config).toEqual(
      withExclusions(getPreset('XINT8'), {
        nodesToExclude: ['Exp_2'],
        opTypesToExclude: ['Sigmoid'],
        subgraphsToExclude: [{ starts: ['Conv_0'], ends: ['Relu_1'] }],
      }),
    );
  });

  it('trusts the config fields over stale named entries (a file edited by hand)', () => {
    const json = JSON.parse(configDocumentToJSON(getPreset('XINT8'), studio));
    json.nodesToExclude = ['Relu_1'];
    const back = readConfigDocument(json);
    expect(back.studio.exclusions).toEqual([
      { kind: 'subgraph', name: 'Conv_0 → Relu_1', starts: ['Conv_0'], ends: ['Relu_1'] },
      { kind: 'nodes', name: 'Relu_1', nodes: ['Relu_1'] },
      { kind: 'opTypes', name: 'Sigmoid', opTypes: ['Sigmoid'] },
    ]);
  });

  it('reads a plain config file (no studio section) and names its exclusions', () => {
    const back = readConfigDocument({ activationType: 'uint8', nodesToExclude: ['a', 'b'] });
    expect(back.config.activationType).toBe('uint8');
    expect(back.studio.exclusions.map((e) => e.name)).toEqual(['a', 'b']);
  });

  it.each([
    ['not JSON', '{"activationType": ', 'config'],
    ['an array', '[]', 'config'],
    [
      'a bad entry kind',
      JSON.stringify({ studio: { exclusions: [{ kind: 'layer', name: 'x' }] } }),
      'studio.exclusions[0].kind',
    ],
    [
      'an entry without a name',
      JSON.stringify({ studio: { exclusions: [{ kind: 'nodes', nodes: ['a'] }] } }),
      'studio.exclusions[0].name',
    ],
    ['an unknown config field', JSON.stringify({ activation: 'int8' }), 'config.activation'],
  ])('rejects %s with a ConfigError naming the field', (_what, text, field) => {
    let error: unknown;
    try {
      configDocumentFromJSON(text);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).field).toBe(field);
  });
});
