// The monitor schedule's settings on AWS, read once: the sealing KMS key (which opens its messages) is required and a
// missing one fails naming it; neither the credentials secret nor the control sender's settings are asked for.
import { describe, expect, it } from 'vitest';
import { loadMonitorConfig } from '../../shared/config';

const ENV = { TABLE_NAME: 't', AWS_REGION: 'eu-west-1', SEALING_KEY_ARN: 'arn:key' };

describe('the monitor schedule settings', () => {
  it('needs the table, the region and the sealing key, not the control sender nor the secret', () => {
    expect(loadMonitorConfig(ENV)).toMatchObject(ENV);
    expect(loadMonitorConfig(ENV)).not.toHaveProperty('CONTROL_FROM');
    expect(loadMonitorConfig({ ...ENV, CREDENTIALS_SECRET_ID: 's' })).not.toHaveProperty(
      'CREDENTIALS_SECRET_ID',
    );
  });

  it('fails at start naming a missing sealing key', () => {
    const { SEALING_KEY_ARN: _, ...without } = ENV;
    expect(() => loadMonitorConfig(without)).toThrow(/SEALING_KEY_ARN/);
  });
});
