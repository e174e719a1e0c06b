/**
 * Writes an MLP with external data (bench/largeModel.ts) for e2e/large-model.spec.ts, which cannot import
 * the core's protobuf schema itself. Usage: node --import tsx e2e/builders/largeModel.ts <dir> <bytes> <name> <width>
 * Prints the files as JSON.
 */
import { writeLargeModel } from '../../bench/largeModel.ts';

const [dir, bytes, name, width] = process.argv.slice(2);
console.log(JSON.stringify(writeLargeModel(dir, Number(bytes), { name, width: Number(width) })));
