// Owns assembling the CDK app: settings from context, the two stacks wired through props, and cdk-nag as a
// validation plugin, so `cdk synth` and the tests build exactly the same thing.
import { App, type AppProps, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { stackNameFor } from '../shared/domain/stages';
import { readSettings, type Settings } from './settings';
import { DataStack } from './stacks/DataStack';
import { ServiceStack } from './stacks/ServiceStack';

export interface InboxPlacementApp {
  app: App;
  settings: Settings;
  data: DataStack;
  service: ServiceStack;
}

/** Builds the app. The CLI passes cdk.json's context in; tests pass theirs through `props.context`. */
export const createApp = (props: AppProps = {}): InboxPlacementApp => {
  const app = new App(props);
  const settings = readSettings((key) => app.node.tryGetContext(key));

  // A stage prefixes the stack names, and so every name CloudFormation derives from them (table, log groups, alarms,
  // dashboard, the scanner); the few names given explicitly take the stage from settings.
  const data = new DataStack(app, stackNameFor('data', settings.stage), {
    description: 'Inbox placement: the table and the mailbox credentials (retained on delete)',
    stage: settings.stage,
    scanner: {
      reservation: settings.scannerConcurrency,
      shardSize: settings.scanShardSize,
      mailboxes: settings.mailboxes,
    },
  });
  const service = new ServiceStack(app, stackNameFor('service', settings.stage), {
    description: 'Inbox placement: functions, HTTP API, scanner triggers, dashboard and alarms',
    table: data.table,
    credentials: data.credentials,
    sealingKey: data.sealingKey,
    settings,
  });

  // Findings nobody acknowledged fail `cdk synth` (and so `cdk deploy`) with the report; test/infra asserts none.
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, settings, data, service };
};
