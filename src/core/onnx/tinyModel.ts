/**
 * A tiny model of the common kinds of node (a Conv with its weight, a folded Constant, a branch and a join), for
 * warming up code before the first real model: the model worker decodes it, and the page draws its graph off
 * screen while idle, so the user's first model finds that code compiled instead of paying V8's
 * first-call cost (tens of ms on a first drop).
 */
import { DataType, makeGraph, makeModel, makeNode, makeValueInfo, type ModelProto } from './model.ts';
import { makeTensor } from './tensorData.ts';

export function tinyModel(): ModelProto {
  const w = makeTensor('w', DataType.FLOAT, [2, 1, 1, 1], new Float32Array([1, 1]));
  return makeModel(
    makeGraph({
      node: [
        makeNode('Conv', ['x', 'w'], ['c'], 'conv'),
        makeNode('Relu', ['c'], ['r'], 'relu'),
        makeNode('MaxPool', ['r'], ['p'], 'pool'),
        makeNode('Sigmoid', ['c'], ['s'], 'sigmoid'),
        makeNode('Constant', [], ['k'], 'k'),
        makeNode('Mul', ['s', 'k'], ['m'], 'mul'),
        makeNode('Add', ['p', 'm'], ['a'], 'add'),
        makeNode('Reshape', ['a', 'k'], ['y'], 'reshape'),
      ],
      input: [makeValueInfo('x', DataType.FLOAT, ['batch', 1, 4, 4])],
      output: [makeValueInfo('y', DataType.FLOAT, ['batch', 32])],
      initializer: [w],
    }),
  );
}
