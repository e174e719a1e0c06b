#!/usr/bin/env node
// Entry point of the `qstudio` command: on Linux it runs itself again with the allocator settings of allocator.js;
// then it registers tsx so that the TypeScript core and CLI run as written.
import { fileURLToPath } from 'node:url';
import { allocatorEnvironment, runInChild } from './allocator.js';

const env = allocatorEnvironment(process.env, process.platform, process.execArgv);
if (env) runInChild(fileURLToPath(import.meta.url), process.argv.slice(2), env);
else {
  const { register } = await import('tsx/esm/api');
  register();
  const { main } = await import('../src/cli/main.ts');
  process.exitCode = await main(process.argv.slice(2));
}
