import { describe, expect, it } from 'vitest';
import { backoffDelay } from '../src/core/backoff';

describe('backoffDelay', () => {
  const policy = { baseMs: 250, maxMs: 10_000 };

  it('doubles per attempt and stays within [ceiling/2, ceiling]', () => {
    expect([1, 2, 3, 4].map((n) => backoffDelay(policy, n, () => 1))).toEqual([250, 500, 1000, 2000]);
    expect([1, 2, 3, 4].map((n) => backoffDelay(policy, n, () => 0))).toEqual([125, 250, 500, 1000]);
  });

  it('is capped', () => {
    expect(backoffDelay(policy, 50, () => 1)).toBe(10_000);
    expect(backoffDelay(policy, 1000, () => 0)).toBe(5_000);
  });

  it('spreads clients with jitter', () => {
    const values = new Set([0.1, 0.4, 0.7].map((r) => backoffDelay(policy, 3, () => r)));
    expect(values.size).toBe(3);
  });
});
