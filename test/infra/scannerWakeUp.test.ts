// How the table's stream wakes the scanner, in the template: large batches sent at once, a wake-up dropped once the
// minute schedule would have done its work, a couple of retries, no bisecting, a dead-letter queue; and the
// scanner's hand-over chain exempt from Lambda's recursive-loop detection, which no other function is.
import { beforeAll, describe, expect, it } from 'vitest';
import { logicalIdOf, resourcesOf, type SynthesizedApp, synthApp } from './synthApp';

let built: SynthesizedApp;
beforeAll(() => {
  built = synthApp();
});

describe('the stream wake-up', () => {
  it('batches up to 100 new checks, sent at once, dropped after a minute, retried twice, not bisected', () => {
    // The scanner's own mapping: other functions (the webhook sender) read the stream or a queue too.
    const scanner = logicalIdOf(built.service.scanner);
    const scannerAliases = Object.entries(resourcesOf(built.serviceTemplate, 'AWS::Lambda::Alias'))
      .filter(
        ([, alias]) => JSON.stringify(alias.Properties?.FunctionName) === JSON.stringify({ Ref: scanner }),
      )
      .map(([id]) => id);
    const mappings = Object.values(
      resourcesOf(built.serviceTemplate, 'AWS::Lambda::EventSourceMapping'),
    ).filter((mapping) => {
      const target = JSON.stringify(mapping.Properties?.FunctionName);
      return [scanner, ...scannerAliases].some((id) => target.includes(`"${id}"`));
    });
    expect(mappings).toHaveLength(1);
    expect(mappings[0]?.Properties).toMatchObject({
      BatchSize: 100,
      MaximumBatchingWindowInSeconds: 0,
      MaximumRecordAgeInSeconds: 60,
      MaximumRetryAttempts: 2,
      BisectBatchOnFunctionError: false,
      DestinationConfig: {
        OnFailure: { Destination: { 'Fn::GetAtt': [logicalIdOf(built.service.scannerDeadLetters), 'Arn'] } },
      },
    });
  });
});

describe('the hand-over chain', () => {
  it('allows the scanner to invoke itself without recursive-loop detection stopping it', () => {
    const functions = resourcesOf(built.serviceTemplate, 'AWS::Lambda::Function');
    expect(functions[logicalIdOf(built.service.scanner)]?.Properties?.RecursiveLoop).toBe('Allow');
  });

  it('leaves every other function on the default, where a loop is stopped', () => {
    const scanner = logicalIdOf(built.service.scanner);
    const others = Object.entries(resourcesOf(built.serviceTemplate, 'AWS::Lambda::Function')).filter(
      ([id]) => id !== scanner,
    );
    expect(others.length).toBeGreaterThanOrEqual(3);
    for (const [, fn] of others) expect(fn.Properties?.RecursiveLoop).not.toBe('Allow');
  });
});
