// The scanner's memory is a deploy setting (scannerMemoryMb), its default set from the stack-cost bench's measured
// sweep: the template takes it, and a value Lambda would refuse stops synth.
import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../../infra/settings';
import { logicalIdOf, resourcesOf, synthApp } from './synthApp';

const scannerMemory = (context: Record<string, unknown>) => {
  const built = synthApp(context);
  return resourcesOf(built.serviceTemplate)[logicalIdOf(built.service.functions.scanner)]?.Properties
    ?.MemorySize;
};

describe('scannerMemoryMb', () => {
  // Each synthesizes the whole app, which takes a while on a busy machine.
  it('sizes the scanner function by default from the setting', { timeout: 120_000 }, () => {
    expect(scannerMemory({})).toBe(DEFAULT_SETTINGS.scannerMemoryMb);
  });

  it('sizes it as set with -c scannerMemoryMb', { timeout: 120_000 }, () => {
    expect(scannerMemory({ scannerMemoryMb: '1024' })).toBe(1024);
  });

  it('refuses what Lambda would: under 128 MB or over 10,240 MB', () => {
    expect(() => synthApp({ scannerMemoryMb: 100 })).toThrow(/scannerMemoryMb/);
    expect(() => synthApp({ scannerMemoryMb: 20_000 })).toThrow(/scannerMemoryMb/);
  });
});
