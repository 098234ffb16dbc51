// How the functions log and trace: Lambda's JSON log format at the level of LOG_LEVEL, and X-Ray with the
// POWERTOOLS_TRACE_ENABLED only when the deploy asks for it (-c tracing=true), cdk-nag clean either way.
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { propOf, type Resource, resourcesOf, type SynthesizedApp, synthApp } from './synthApp';

const functionsOf = (built: SynthesizedApp) =>
  Object.values(resourcesOf(built.serviceTemplate, 'AWS::Lambda::Function'));
const envOf = (fn: Resource) => propOf<{ Variables: Record<string, unknown> }>(fn, 'Environment').Variables;

describe('logging and tracing', () => {
  let plain: SynthesizedApp;
  let traced: SynthesizedApp;
  beforeAll(() => {
    plain = synthApp();
    traced = synthApp({ tracing: 'true', logLevel: 'debug' });
  });

  it('log JSON at the level LOG_LEVEL names, so Lambda keeps every line Powertools writes', () => {
    expect(functionsOf(plain).length).toBeGreaterThanOrEqual(5);
    for (const fn of functionsOf(plain)) {
      expect(fn.Properties?.LoggingConfig).toMatchObject({ LogFormat: 'JSON', ApplicationLogLevel: 'INFO' });
    }
    for (const fn of functionsOf(traced)) {
      expect(fn.Properties?.LoggingConfig).toMatchObject({ LogFormat: 'JSON', ApplicationLogLevel: 'DEBUG' });
      expect(envOf(fn).LOG_LEVEL).toBe('debug');
    }
  });

  it('trace nothing by default, and every function with X-Ray under -c tracing=true', () => {
    for (const fn of functionsOf(plain)) {
      expect(fn.Properties?.TracingConfig).toBeUndefined();
      expect(envOf(fn).POWERTOOLS_TRACE_ENABLED).toBe('false');
    }
    for (const fn of functionsOf(traced)) {
      expect(fn.Properties?.TracingConfig).toEqual({ Mode: 'Active' });
      expect(envOf(fn).POWERTOOLS_TRACE_ENABLED).toBe('true');
    }
  });

  it('stay cdk-nag clean with tracing on', () => {
    const findings = new AwsSolutionsChecks().validateScope(traced.app).violations;
    expect(findings.map((finding) => finding.ruleName)).toEqual([]);
  });
});
