/**
 * The optimizers' cancel point: a cancel arriving as a task (in a worker, a message sets the signal) must reach a
 * loop whose steps never wait on anything but resolved promises. Such a loop starves the task queue unless the cancel
 * point gives the thread a task now and then; without it the loop below runs all its steps and the test fails.
 */
import { describe, expect, it } from 'vitest';
import { cancelPoint } from './layerData.ts';

describe('cancelPoint', () => {
  it('lets a cancel set by a later task stop a loop of synchronous steps', async () => {
    const signal = { aborted: false };
    setTimeout(() => (signal.aborted = true), 20);
    let steps = 0;
    const loop = async () => {
      for (let i = 0; i < 3000; i++) {
        const until = performance.now() + 1;
        while (performance.now() < until) steps += 0; // a synchronous step of about 1 ms
        steps++;
        await cancelPoint(signal);
      }
      return 'ran every step';
    };
    await expect(loop()).rejects.toMatchObject({ name: 'RecoveryError', message: /cancelled/ });
    expect(steps).toBeGreaterThan(0);
  }, 10_000);

  it('passes straight through while not cancelled, and throws at once when already cancelled', async () => {
    await expect(cancelPoint({ aborted: false })).resolves.toBeUndefined();
    await expect(cancelPoint({ aborted: true })).rejects.toMatchObject({ name: 'RecoveryError' });
  });
});
