/**
 * Calibration past one machine: `qstudio calibrate --shard i/n --stats` on each share of a folder, then
 * `qstudio merge`, gives exactly the ranges of one run over all the images (XINT8: a histogram method, the
 * hard case; MinMax merges are simpler); shards of different configurations, and ConsumerMSE's (its search needs
 * the whole run), are refused by name.
 */
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { shardFolder } from './helpers/shardFolder.ts';
import { qstudio } from './helpers/qstudio.ts';

const { tmp, calib, model, preprocess } = shardFolder('qs-shard-');
const common = ['--calib', calib, '--preprocess', preprocess];

describe('qstudio calibrate --shard and qstudio merge', () => {
  it.each(['XINT8'])('%s: two shards merged give the ranges of one run, exactly', (config) => {
    const whole = path.join(tmp, `${config}-whole.json`);
    expect(qstudio('calibrate', model, ...common, '--config', config, '-o', whole).code).toBe(0);
    const stats = [0, 1].map((i) => path.join(tmp, `${config}-${i}.stats.json`));
    stats.forEach((file, i) => {
      const r = qstudio('calibrate', model, ...common, '--config', config, '--shard', `${i}/2`, '--stats', file);
      expect(r.code, r.stderr).toBe(0);
    });
    const merged = path.join(tmp, `${config}-merged.json`);
    const r = qstudio('merge', ...stats, '-o', merged);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/merged 2 shards, 5 samples/);
    const a = JSON.parse(fs.readFileSync(whole, 'utf8'));
    const b = JSON.parse(fs.readFileSync(merged, 'utf8'));
    expect(b.ranges).toEqual(a.ranges);
    expect(b.method).toBe(a.method);
  });

  it("ConsumerMSE is not sharded: --shard and merging its statistics are refused by name, saying what to run; one run's file gives its ranges", () => {
    const cm = ['--config', 'A8W8', '--calibration-method', 'ConsumerMSE'];
    const shard = qstudio(
      'calibrate',
      model,
      ...common,
      ...cm,
      '--shard',
      '0/2',
      '--stats',
      path.join(tmp, 'cm-0.stats.json'),
    );
    expect(shard.code).not.toBe(0);
    expect(shard.stderr).toMatch(/ConsumerSearchSplitError: .*in one run .*or shard with MinMSE/);
    const whole = path.join(tmp, 'cm-whole.json');
    const stats = path.join(tmp, 'cm-whole.stats.json');
    expect(qstudio('calibrate', model, ...common, ...cm, '-o', whole, '--stats', stats).code).toBe(0);
    const again = path.join(tmp, 'cm-again.json');
    expect(qstudio('merge', stats, '-o', again).code).toBe(0);
    expect(JSON.parse(fs.readFileSync(again, 'utf8')).ranges).toEqual(
      JSON.parse(fs.readFileSync(whole, 'utf8')).ranges,
    );
    const two = qstudio('merge', stats, stats, '-o', path.join(tmp, 'cm-two.json'));
    expect(two.code).not.toBe(0);
    expect(two.stderr).toMatch(/ConsumerSearchSplitError: /);
    // A share's file (as earlier versions wrote them) gives no ranges either.
    const share = path.join(tmp, 'cm-share.stats.json');
    fs.writeFileSync(
      share,
      fs.readFileSync(stats, 'utf8').replace('"shards":1,', '"shards":1,"shard":{"index":0,"count":2},'),
    );
    const one = qstudio('merge', share, '-o', path.join(tmp, 'cm-one.json'));
    expect(one.stderr).toMatch(/ConsumerSearchSplitError: .*share 0\/2/);
  });

  it('refuses to merge shards of different configurations, and a file that is not statistics', () => {
    const other = path.join(tmp, 'U8S8-0.stats.json');
    expect(qstudio('calibrate', model, ...common, '--config', 'U8S8', '--shard', '0/2', '--stats', other).code).toBe(0);
    const r = qstudio('merge', other, path.join(tmp, 'XINT8-1.stats.json'), '-o', path.join(tmp, 'x.json'));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/StatisticsFileError: .*share one configuration/);
    const bad = qstudio('merge', path.join(tmp, 'XINT8-whole.json'), '-o', path.join(tmp, 'y.json'));
    expect(bad.stderr).toMatch(/StatisticsFileError: .*not a calibration statistics file/);
  });
});
