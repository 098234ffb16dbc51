// Owns the names of the deployed stacks per stage, so the CDK app, the deploy script and the operator CLI agree on
// them: the default stage keeps the unprefixed names an existing deploy already has.

/** A stage name: lower-case letters and digits, a letter first; short, since it prefixes physical names. */
const STAGE = /^[a-z][a-z0-9]{0,11}$/;
export const STAGE_RULE = 'lower-case letters and digits, a letter first, at most 12 characters';

export const STACK_BASE_NAMES = { data: 'InboxPlacementData', service: 'InboxPlacementService' } as const;

export type StackRole = keyof typeof STACK_BASE_NAMES;

export const isStageName = (value: string): boolean => STAGE.test(value);

/** The stack's name in a stage: `<stage>-InboxPlacementData`, or the bare name for the default stage. */
export const stackNameFor = (role: StackRole, stage: string | undefined): string =>
  stage === undefined ? STACK_BASE_NAMES[role] : `${stage}-${STACK_BASE_NAMES[role]}`;
