// Owns the saved CloudWatch Logs Insights queries: one per question an operator asks of the logs, over every
// function's log group, in the log field names of docs/operating.md (where the same queries are printed).

import { Lazy } from 'aws-cdk-lib';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { CfnQueryDefinition } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';

/** The saved queries, as docs/operating.md prints them (test/docs/logFields.test.ts holds the two together). */
export const SAVED_QUERIES = [
  {
    name: 'one-check',
    title: 'One check, start to webhook: every line that names it, in order.',
    query:
      'fields @timestamp, service, message, route, status, category, folder, state, attempt\n| filter check_id = "<check id>"\n| sort @timestamp asc',
  },
  {
    name: 'webhooks-not-delivered',
    title: 'Webhooks that did not get through, newest first.',
    query:
      'fields @timestamp, check_id, webhook_id, attempt, status, error, retry_in_ms\n| filter message = "webhook attempt" and state != "delivered"\n| sort @timestamp desc',
  },
  {
    name: 'failed-requests',
    title: 'Requests that failed, by route.',
    query:
      'fields @timestamp, route, request_id, error.message\n| filter message = "request failed" or message = "store unavailable"\n| stats count(*) by route',
  },
  {
    name: 'failing-accounts',
    title: 'Accounts the scanner is failing on.',
    query:
      'fields @timestamp, account, failures, code, reason\n| filter ispresent(failures)\n| stats max(failures) by account',
  },
  {
    name: 'monitor-alarms',
    title: "Monitors' alarming judgements (a real drop, or the message), newest first.",
    query:
      'fields @timestamp, monitor, scope, provider, state, run_ids, judgement\n| filter message = "monitor alarm"\n| sort @timestamp desc',
  },
] as const;

export interface LogQueriesProps {
  /** Each query is saved as `<namePrefix>/<name>` (the stack's name, so stages stay apart). */
  namePrefix: string;
  functions: readonly LambdaFunction[];
}

export class LogQueries extends Construct {
  private readonly logGroupNames: string[];

  constructor(scope: Construct, id: string, { namePrefix, functions }: LogQueriesProps) {
    super(scope, id);
    this.logGroupNames = functions.map((fn) => fn.logGroup.logGroupName);
    // Read at synth, so a function added later (addFunction) is in every query too.
    const logGroupNames = Lazy.list({ produce: () => this.logGroupNames });
    for (const { name, query } of SAVED_QUERIES)
      new CfnQueryDefinition(this, name, {
        name: `${namePrefix}/${name}`,
        queryString: query,
        logGroupNames,
      });
  }

  /** A function built after the queries (one of its own construct's) searched by them as well. */
  addFunction(fn: LambdaFunction): void {
    this.logGroupNames.push(fn.logGroup.logGroupName);
  }
}
