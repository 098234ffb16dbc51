// Owns reading the control sender's secret on AWS: its SMTP URL (with the user name) and password, validated once;
// a malformed secret is named by where it is wrong, never by what it holds.
import { GetSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { controlSenderSecret } from '../../config';
import { parseJsonText } from '../../domain/jsonText';
import { problemsOf } from '../../domain/problems';

/** The secret is a small JSON object: anything larger is not one. */
const MAX_SECRET_CHARS = 4096;

export const readControlSenderSecret = async (
  client: SecretsManagerClient,
  secretId: string,
): Promise<{ url: string; password: string | undefined }> => {
  const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
  if (!SecretString)
    throw new Error('the control sender secret holds no value yet: put {"url": …, "password": …}');
  const parsed = controlSenderSecret.safeParse(
    parseJsonText(SecretString, 'the control sender secret', MAX_SECRET_CHARS),
  );
  if (!parsed.success)
    throw new Error(
      `the control sender secret is not {"url", "password"}: ${problemsOf(parsed.error).join('; ')}`,
    );
  return { url: parsed.data.url, password: parsed.data.password };
};
