import { describe, expect, it } from 'vitest';
import { formatBound, formatBytes, formatMs, formatRate } from './format';

describe('usage formats', () => {
  it('rates, durations, sizes and bounds as people read them', () => {
    expect([formatRate(0), formatRate(0.3), formatRate(0.025), formatRate(1)]).toEqual(['0%', '30%', '2.5%', '100%']);
    expect([formatMs(0.5), formatMs(4.25), formatMs(19), formatMs(5000), formatMs(12_345), formatMs(90_000)]).toEqual(['0.50 ms', '4.3 ms', '19 ms', '5.00 s', '12.3 s', '1.5 min']);
    expect([formatBytes(42), formatBytes(2048), formatBytes(50 * 1024), formatBytes(3 * 1024 * 1024)]).toEqual(['42 B', '2.0 KiB', '50.0 KiB', '3.0 MiB']);
    expect([formatBound(30), formatBound(3000)]).toEqual(['30 ms', '3 s']);
  });
});
