// The dashboard's monitors section: the inbox rate per monitor and provider with its 95 % Wilson band as metric math
// over SEARCH of the run counts (names and dimensions from the one metrics module, never a mailbox). The math itself
// is evaluated against the statistics module in monitorMath.test.ts.
import { Stack } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { monitorWidgets } from '../../infra/constructs/monitorWidgets';
import { serviceMetricsIn } from '../../infra/constructs/serviceMetrics';

interface Rendered {
  properties?: { title?: string; metrics?: unknown[][] };
}

const rendered = (): Rendered[] => {
  const stack = new Stack();
  return monitorWidgets(serviceMetricsIn('InboxPlacement')).flatMap(
    (widget) => stack.resolve(widget.toJson()) as Rendered[],
  );
};

const expressions = () =>
  rendered().flatMap((widget) =>
    (widget.properties?.metrics ?? []).flatMap((row) =>
      row.filter(
        (cell): cell is { expression: string } =>
          typeof (cell as { expression?: unknown })?.expression === 'string',
      ),
    ),
  );

describe('the monitors section of the dashboard', () => {
  it('searches the run counts under the monitor and the provider, never a mailbox', () => {
    const searches = expressions().filter((e) => e.expression.startsWith('SEARCH('));
    expect(searches.map((e) => e.expression).join('\n')).toContain(
      `{InboxPlacement,service,Monitor,Provider} MetricName="MonitorInbox" service="monitor"`,
    );
    expect(searches.map((e) => e.expression).join('\n')).toContain('MetricName="MonitorCopies"');
    expect(searches.map((e) => e.expression).join('\n')).not.toContain('Account');
  });
});
