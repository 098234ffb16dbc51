// Owns the per-mailbox view: which seed failed, skipped a message, left new checks or needs consent, read from the
// scanner's structured logs (field `account`) by a saved Logs Insights query and a dashboard widget, never from a
// per-mailbox metric (each dimension set is a custom metric billed monthly).
import { type IWidget, LogQueryVisualizationType, LogQueryWidget } from 'aws-cdk-lib/aws-cloudwatch';
import { type ILogGroup, QueryDefinition, QueryString } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';

/** The scanner's log lines that name an account in trouble (shared/scanner/recording.ts, OAuthTokens.ts). */
const MAILBOX_EVENTS = [
  'account sweep failed',
  'skipped a message the server did not hand over in time',
  'account left new checks after failing repeatedly',
  'oauth2 consent required',
];

const mailboxQuery = new QueryString({
  fields: ['@timestamp', 'account', 'message', 'error'],
  filterStatements: [
    'ispresent(account)',
    `message in [${MAILBOX_EVENTS.map((event) => `'${event}'`).join(', ')}]`,
  ],
  statsStatements: ['count(*) as events, latest(error) as lastError by account, message'],
  sort: 'events desc',
  limit: 100,
});

/** The saved query, named after the stack (so each stage has its own), and the dashboard's table of it. */
export const mailboxQueries = (scope: Construct, prefix: string, scannerLogs: ILogGroup): IWidget => {
  new QueryDefinition(scope, 'MailboxEventsQuery', {
    queryDefinitionName: `${prefix}/mailbox-events`,
    queryString: mailboxQuery,
    logGroups: [scannerLogs],
  });
  return new LogQueryWidget({
    title: 'Mailboxes in trouble (scanner logs, by account)',
    logGroupNames: [scannerLogs.logGroupName],
    queryString: mailboxQuery.toString(),
    view: LogQueryVisualizationType.TABLE,
    width: 24,
    height: 6,
  });
};
