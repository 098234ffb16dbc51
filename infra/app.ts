// The CDK app's entry point (cdk.json runs it with tsx): `npm run synth`, `npm run deploy`.
//
// Two stacks, one stateful and one stateless:
// - InboxPlacementData holds what must outlive any deploy: the DynamoDB table (API keys, accounts, checks) and the
//   secret with the mailbox credentials. Both are RETAINed, so even `cdk destroy` of this stack leaves them.
// - InboxPlacementService holds everything that can be rebuilt from the repository: functions, HTTP API, schedule,
//   stream trigger, dashboard, alarms, SNS topic. Redeploying or destroying it never touches the data, and a change
//   to a function cannot, by a mistaken replacement, recreate the table or reset the secret.
// The service stack gets the table and the secret through props (CDK turns them into exports/imports), so the
// dependency runs one way only: Data never refers to Service.
import { createApp } from './createApp';

createApp();
