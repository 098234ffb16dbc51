// The monitor schedule's settings on AWS, read once: the credentials secret (for the item key) is required and a
// missing one fails naming it; the control sender's settings, the calibration's, are not asked for.
import { describe, expect, it } from 'vitest';
import { loadMonitorConfig } from '../../shared/config';

const ENV = { TABLE_NAME: 't', AWS_REGION: 'eu-west-1', CREDENTIALS_SECRET_ID: 'arn:secret' };

describe('the monitor schedule settings', () => {
  it('needs the table, the region and the credentials secret, not the control sender', () => {
    expect(loadMonitorConfig(ENV)).toMatchObject(ENV);
    expect(loadMonitorConfig(ENV)).not.toHaveProperty('CONTROL_FROM');
  });

  it('fails at start naming a missing credentials secret', () => {
    const { CREDENTIALS_SECRET_ID: _, ...without } = ENV;
    expect(() => loadMonitorConfig(without)).toThrow(/CREDENTIALS_SECRET_ID/);
  });
});
