/**
 * A sequential calibration past one machine: `qstudio calibrate --calibration-method Sequential --shard i/n` in
 * rounds (the float pass, then every later round with `--after` the merged statistics of the rounds before,
 * merged with `qstudio merge --after`) gives exactly the ranges of one run over all the images; what would
 * break that (ranges before the last round, a round merged without what it started from, a missing share,
 * shards of a round started from other ranges, whole sequential runs merged) is refused by name. The commands
 * run in this process (their exit codes and messages are the other CLI tests' business): sixteen processes
 * would cost more than the calibrations.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { shardFolder } from './helpers/shardFolder.ts';
import { calibrateCommand } from '../src/cli/commands/calibrate.ts';
import { mergeCommand } from '../src/cli/commands/merge.ts';
import { parseStatistics } from '../src/core/calibrate/run/statisticsFile.ts';
import { rangesOf } from '../src/core/calibrate/run/statistics.ts';

const { tmp, calib, model, preprocess } = shardFolder('qs-shard-seq-');
const common = [
  model,
  '--calib',
  calib,
  '--preprocess',
  preprocess,
  '--config',
  'A8W8',
  '--calibration-method',
  'Sequential',
];
const at = (name: string) => path.join(tmp, name);
const calibrate = (...args: string[]) => calibrateCommand.run([...common, ...args]);
const merge = (...args: string[]) => mergeCommand.run(args);
const read = (file: string) => parseStatistics(fs.readFileSync(file, 'utf8'), file);

let printed: string[] = [];
beforeAll(() => {
  vi.spyOn(process.stdout, 'write').mockImplementation((text) => printed.push(String(text)) > 0);
  vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
});
afterAll(() => vi.restoreAllMocks());

describe('qstudio calibrate --calibration-method Sequential --shard, in rounds', () => {
  it('two shards, round by round, give exactly the ranges of one run; the commands say what to run next', async () => {
    expect(await calibrate('-o', at('whole.json'), '--stats', at('whole.stats.json'))).toBe(0);
    const rounds = read(at('whole.stats.json')).sequential!.rounds;
    expect(read(at('whole.stats.json')).sequential).toEqual({ round: rounds - 1, rounds });
    expect(rounds).toBeGreaterThanOrEqual(3);

    printed = [];
    for (const i of [0, 1]) expect(await calibrate('--shard', `${i}/2`, '--stats', at(`r1-${i}.json`))).toBe(0);
    expect(printed.join('')).toMatch(
      new RegExp(`round 1 of ${rounds} of a sequential calibration: merge every share's file`),
    );
    expect(await merge(at('r1-0.json'), at('r1-1.json'), '--stats', at('after-1.json'))).toBe(0);
    for (let k = 2; k <= rounds; k++) {
      for (const i of [0, 1])
        expect(
          await calibrate('--shard', `${i}/2`, '--after', at(`after-${k - 1}.json`), '--stats', at(`r${k}-${i}.json`)),
        ).toBe(0);
      const out = k === rounds ? ['-o', at('sharded.json')] : [];
      expect(
        await merge(
          at(`r${k}-0.json`),
          at(`r${k}-1.json`),
          '--after',
          at(`after-${k - 1}.json`),
          '--stats',
          at(`after-${k}.json`),
          ...out,
        ),
      ).toBe(0);
    }
    expect(printed.join('')).toMatch(new RegExp(`round ${rounds} of ${rounds}, the last`));
    const whole = JSON.parse(fs.readFileSync(at('whole.json'), 'utf8'));
    const sharded = JSON.parse(fs.readFileSync(at('sharded.json'), 'utf8'));
    expect(sharded.method).toBe('Sequential');
    expect(sharded.images).toBe(5);
    expect(sharded.ranges).toEqual(whole.ranges);
    // The later rounds moved ranges away from the float pass's (else equality would prove little).
    const float = rangesOf(read(at('after-1.json')).states);
    const moved = Object.entries(sharded.ranges as Record<string, [number, number]>).filter(
      ([t, [min, max]]) => float.get(t)!.min !== min || float.get(t)!.max !== max,
    );
    expect(moved.length).toBeGreaterThan(0);
  }, 60_000);

  it('refuses by name what would not be exact', async () => {
    // Ranges before the last round: the float ones downstream.
    await expect(merge(at('r1-0.json'), at('r1-1.json'), '-o', at('early.json'))).rejects.toMatchObject({
      name: 'SequentialRoundsError',
      message: expect.stringMatching(/Run round 2/),
    });
    // A later round merged without the statistics it started from.
    await expect(merge(at('r2-0.json'), at('r2-1.json'), '-o', at('x.json'))).rejects.toMatchObject({
      name: 'SequentialRoundsError',
      message: expect.stringMatching(/--after/),
    });
    // A share missing from a round.
    await expect(merge(at('r2-0.json'), '--after', at('after-1.json'), '--stats', at('x.json'))).rejects.toMatchObject({
      name: 'StatisticsFileError',
      message: expect.stringMatching(/lacks share 1\/2/),
    });
    // Shards of a round started from other ranges than the file they are merged onto.
    await expect(
      merge(at('r3-0.json'), at('r3-1.json'), '--after', at('after-1.json'), '--stats', at('x.json')),
    ).rejects.toMatchObject({ name: 'SequentialRoundsError' });
    await expect(
      merge(at('r2-0.json'), at('r2-1.json'), '--after', at('after-2.json'), '--stats', at('x.json')),
    ).rejects.toMatchObject({ name: 'SequentialRoundsError' });
    // Two whole sequential runs (each quantized with its own images' ranges).
    await expect(merge(at('whole.stats.json'), at('whole.stats.json'), '-o', at('x.json'))).rejects.toMatchObject({
      name: 'SequentialRoundsError',
    });
    // A round after the last, and a shard asked for ranges.
    const rounds = read(at('whole.stats.json')).sequential!.rounds;
    await expect(
      calibrate('--shard', '0/2', '--after', at(`after-${rounds}.json`), '--stats', at('x.json')),
    ).rejects.toMatchObject({ name: 'SequentialRoundsError' });
    await expect(calibrate('--shard', '0/2', '--stats', at('x.json'), '-o', at('y.json'))).rejects.toMatchObject({
      name: 'UsageError',
    });
  }, 60_000);
});
