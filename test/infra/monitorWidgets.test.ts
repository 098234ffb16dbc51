// The dashboard's monitors section: the inbox rate per monitor and provider with its 95 % Wilson band as metric math
// over SEARCH of the run counts (names and dimensions from the one metrics module, never a mailbox), and the math
// itself checked by evaluating it for counts whose Wilson interval the statistics module gives.
import { Stack } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { monitorWidgets } from '../../infra/constructs/monitorWidgets';
import { serviceMetricsIn } from '../../infra/constructs/serviceMetrics';
import { wilsonInterval } from '../../shared/domain/statistics';

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

  it('draws the Wilson band by metric math that gives the statistics module’s interval', () => {
    const math = expressions()
      .map((e) => e.expression)
      .filter((e) => !e.startsWith('SEARCH(') && e.includes('^ 0.5'));
    expect(math).toHaveLength(2);
    for (const [count, of] of [
      [0, 3],
      [2, 3],
      [17, 20],
      [60, 60],
    ] as const) {
      // The expression evaluated as CloudWatch would, with i and n the counts (^ is a power there).
      const values = math.map(
        (expression) =>
          Function('i', 'n', `return ${expression.replaceAll('^', '**')};`)(count, of) as number,
      );
      const interval = wilsonInterval(count, of);
      expect(values[0]).toBeCloseTo(interval?.low ?? Number.NaN, 5);
      expect(values[1]).toBeCloseTo(interval?.high ?? Number.NaN, 5);
    }
  });
});
