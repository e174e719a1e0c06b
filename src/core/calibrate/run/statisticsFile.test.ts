/**
 * Statistics files (statisticsFile.ts): every collector's state survives the round trip through text, and
 * merged shard files give exactly the ranges of the states folded in one go.
 */
import { describe, expect, it } from 'vitest';
import { CALIBRATION_METHODS, createState, updateState } from '../collectors/registry.ts';
import { rangesOf, type TensorStates } from './statistics.ts';
import {
  formatStatistics,
  mergeStatisticsFiles,
  parseStatistics,
  rangesOfFile,
  STATISTICS_FORMAT,
  type StatisticsFile,
} from './statisticsFile.ts';
import type { ConsumerMseState } from '../collectors/minmse.ts';
import { gaussian } from '../testData.ts';

const file = (states: TensorStates, images: number): StatisticsFile => ({
  format: STATISTICS_FORMAT,
  version: 1,
  method: 'm',
  key: 'k',
  images,
  shards: 1,
  states,
});

describe('calibration statistics files', () => {
  it.each(CALIBRATION_METHODS)('%s: round trip through text, and shards merge to the whole', (method) => {
    const batches = [gaussian(3000, 1), gaussian(2000, 2), gaussian(1000, 3)];
    batches[1][5] = 30;
    const whole: TensorStates = new Map([['t', createState(method)]]);
    for (const b of batches) updateState(whole.get('t')!, b);
    const shards = batches.map((b) => {
      const s: TensorStates = new Map([['t', createState(method)]]);
      updateState(s.get('t')!, b);
      return parseStatistics(formatStatistics(file(s, 1)), 'shard');
    });
    const merged = mergeStatisticsFiles(shards.map((f, i) => ({ file: f, where: `shard ${i}` })));
    expect(merged.images).toBe(3);
    expect(rangesOf(merged.states)).toEqual(rangesOf(whole));
    expect(rangesOf(parseStatistics(formatStatistics(file(whole, 3)), 'whole').states)).toEqual(rangesOf(whole));
  });

  it("ConsumerMSE: one run's file keeps the searched ranges; shares, or files merged, are refused by name", () => {
    const state = createState('ConsumerMSE') as ConsumerMseState;
    updateState(state, gaussian(2000, 1));
    state.chosen = { min: -1, max: 1 };
    const whole: StatisticsFile = { ...file(new Map([['t', state]]), 4), method: 'ConsumerMSE' };
    const read = parseStatistics(formatStatistics(whole), 'whole');
    expect(rangesOfFile(mergeStatisticsFiles([{ file: read, where: 'whole' }]), 'merged').get('t')).toMatchObject({
      min: -1,
      max: 1,
    });
    const split = expect.objectContaining({ name: 'ConsumerSearchSplitError' });
    expect(() =>
      mergeStatisticsFiles([
        { file: read, where: 'a' },
        { file: read, where: 'b' },
      ]),
    ).toThrow(split);
    const share = { ...read, shard: { index: 1, count: 2 } };
    expect(() => mergeStatisticsFiles([{ file: share, where: 'share' }])).toThrow(split);
    expect(() => rangesOfFile(share, 'share')).toThrow(split);
  });

  it('refuses files of different configurations and files that are not statistics, by name', () => {
    const a = file(new Map(), 1);
    expect(() =>
      mergeStatisticsFiles([
        { file: a, where: 'a' },
        { file: { ...a, key: 'other' }, where: 'b' },
      ]),
    ).toThrow(/share one configuration/);
    expect(() => parseStatistics('{"ranges": {}}', 'r.json')).toThrow(
      expect.objectContaining({ name: 'StatisticsFileError' }),
    );
  });
});
