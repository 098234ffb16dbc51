// cdk-nag's AwsSolutions pack over the whole app: no finding left unacknowledged (errors and warnings alike), and
// every acknowledgement still answers a real finding and gives its reason.
import { type App, Validations } from 'aws-cdk-lib';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { describe, expect, it } from 'vitest';
import { synthApp } from './synthApp';

interface Finding {
  rule: string;
  severity: string;
  path: string;
}

/** Runs the pack as the synth-time plugin does; acknowledged findings are left out unless `ignoreAcks`. */
const findingsOf = (app: App, ignoreAcks = false): Finding[] => {
  const pack = new AwsSolutionsChecks();
  if (ignoreAcks) {
    // cdk-nag 3 filters acknowledged findings in a private method; replacing it shows what they hide.
    expect(typeof Reflect.get(pack, 'isAcknowledged')).toBe('function');
    Reflect.set(pack, 'isAcknowledged', () => false);
  }
  return pack.validateScope(app).violations.flatMap((violation) =>
    violation.violatingResources.map((resource) => ({
      rule: violation.ruleName,
      severity: violation.severity ?? 'error',
      path: resource.constructPath ?? '?',
    })),
  );
};

interface Acknowledgement {
  path: string;
  id: string;
  reason: string;
}

const acknowledgementsOf = (root: IConstruct): Acknowledgement[] =>
  root.node.findAll().flatMap((construct) =>
    construct.node.metadata
      .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((entry) =>
        Object.entries(entry.data as Record<string, string>).map(([id, reason]) => ({
          path: construct.node.path,
          id: id.replace(/^annotation::/i, ''),
          reason,
        })),
      ),
  );

describe('cdk-nag AwsSolutions', () => {
  it('reports a finding nobody acknowledged (the check can fail)', () => {
    const { app, service } = synthApp();
    new Topic(service, 'UnacknowledgedTopic');
    const rules = findingsOf(app)
      .filter((f) => f.path.includes('UnacknowledgedTopic'))
      .map((f) => f.rule);
    expect(rules).toContain('AwsSolutions-SNS3');
  });

  it('has no unacknowledged finding, error or warning, with or without the optional settings', () => {
    for (const context of [{}, { alarmEmail: 'ops@example.com' }]) {
      const { app } = synthApp(context);
      expect(findingsOf(app)).toEqual([]);
    }
  });

  it('acknowledges only real findings, each with a reason, and lists them', () => {
    const { app } = synthApp({ alarmEmail: 'ops@example.com' });
    const raw = findingsOf(app, true);
    const acks = acknowledgementsOf(app);
    expect(acks.length).toBeGreaterThan(0);
    for (const ack of acks) {
      expect(ack.reason.length, `${ack.path} ${ack.id}`).toBeGreaterThan(40);
      const answered = raw.filter((f) => f.rule === ack.id && `${f.path}/`.startsWith(`${ack.path}/`));
      expect(answered.length, `${ack.id} on ${ack.path} answers no finding`).toBeGreaterThan(0);
    }
    // Printed for the record: what is acknowledged, where, and why.
    const lines = acks.map((ack) => `${ack.id}  @ ${ack.path}\n    ${ack.reason}`);
    console.info(`acknowledged cdk-nag findings (${acks.length}):\n${lines.join('\n')}`);
  });
});
