// Starts one DynamoDB Local for the whole run (each suite makes its own table in it) and stops it afterwards.
import type { TestProject } from 'vitest/node';
import { startDynamoLocal } from './dynamoLocal';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoLocalEndpoint: string;
  }
}

export default async function setup(project: TestProject) {
  const local = await startDynamoLocal();
  project.provide('dynamoLocalEndpoint', local.endpoint);
  return async () => {
    await local.stop();
  };
}
