#!/usr/bin/env node
// Entry point of the `qstudio` command: registers tsx so that the TypeScript core and CLI run as written.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
