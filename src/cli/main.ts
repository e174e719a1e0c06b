/**
 * `qstudio`: the studio's core on the command line, for scripts and CI. Dispatches to one module per
 * command; turns the core's named errors into one clear line and exit code 2, and anything unexpected
 * into exit code 1 with its stack.
 */
import { StudioError } from '../core/onnx/index.ts';
import { inspectCommand } from './commands/inspect.ts';
import { quantizeCommand } from './commands/quantize.ts';
import { calibrateCommand } from './commands/calibrate.ts';
import { evaluateCommand } from './commands/evaluate.ts';
import { suggestCommand } from './commands/suggest.ts';
import { ladderCommand } from './commands/ladder.ts';
import { mergeCommand } from './commands/merge.ts';
import { UsageError } from './usage.ts';

interface Command {
  summary: string;
  usage: string;
  run(args: string[]): Promise<number>;
}

const commands: Record<string, Command> = {
  inspect: inspectCommand,
  calibrate: calibrateCommand,
  quantize: quantizeCommand,
  evaluate: evaluateCommand,
  suggest: suggestCommand,
  ladder: ladderCommand,
  merge: mergeCommand,
};

function help(): string {
  const lines = Object.entries(commands).map(([name, c]) => `  ${name.padEnd(10)} ${c.summary}`);
  return `Quant Studio command line\n\nUsage: qstudio <command> [options]\n\nCommands:\n${lines.join('\n')}\n\nRun "qstudio <command> --help" for a command's options.\n`;
}

/** Runs the command line; returns the process exit code. */
export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(help());
    return name ? 0 : 1;
  }
  const command = commands[name];
  if (!command) {
    process.stderr.write(`qstudio: unknown command "${name}"\n\n${help()}`);
    return 1;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(`${command.usage}\n`);
    return 0;
  }
  try {
    return await command.run(rest);
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`qstudio ${name}: ${e.message}\n\n${command.usage}\n`);
      return 1;
    }
    if (e instanceof StudioError) {
      process.stderr.write(`qstudio ${name}: ${(e as Error).name}: ${(e as Error).message}\n`);
      return 2;
    }
    throw e;
  }
}
