// The saved Logs Insights queries: one CloudWatch query definition per query, named under the stack, over the log
// group of every function it is given. A stack of its own with inline functions, so nothing is bundled.
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { describe, expect, it } from 'vitest';
import { LogQueries, SAVED_QUERIES } from '../../infra/constructs/LogQueries';

describe('LogQueries', () => {
  it('saves each query over every given function’s log group', () => {
    const stack = new Stack(new App(), 'Queries');
    const functions = ['A', 'B'].map(
      (id) =>
        new LambdaFunction(stack, id, {
          runtime: Runtime.NODEJS_22_X,
          handler: 'index.handler',
          code: Code.fromInline('exports.handler = async () => {}'),
        }),
    );
    const queries = new LogQueries(stack, 'LogQueries', {
      namePrefix: 'Svc',
      functions: functions.slice(0, 1),
    });
    // One added after the queries were built (the monitor schedule's) is searched as well.
    queries.addFunction(functions[1] as LambdaFunction);
    const template = Template.fromStack(stack);
    const definitions = template.findResources('AWS::Logs::QueryDefinition');
    expect(Object.keys(definitions)).toHaveLength(SAVED_QUERIES.length);
    for (const { name, query } of SAVED_QUERIES)
      template.hasResourceProperties('AWS::Logs::QueryDefinition', {
        Name: `Svc/${name}`,
        QueryString: query,
      });
    for (const definition of Object.values(definitions) as { Properties: { LogGroupNames: unknown[] } }[])
      expect(definition.Properties.LogGroupNames).toHaveLength(functions.length);
  });
});
