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
  it('sizes the scanner function, by default and when set', () => {
    expect(scannerMemory({})).toBe(DEFAULT_SETTINGS.scannerMemoryMb);
    expect(scannerMemory({ scannerMemoryMb: '1024' })).toBe(1024);
  });

  it('refuses what Lambda would: under 128 MB or over 10,240 MB', () => {
    expect(() => synthApp({ scannerMemoryMb: 100 })).toThrow(/scannerMemoryMb/);
    expect(() => synthApp({ scannerMemoryMb: 20_000 })).toThrow(/scannerMemoryMb/);
  });
});
