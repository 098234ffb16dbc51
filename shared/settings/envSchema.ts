// Owns how a setting is read from the environment: zod's mini build with English messages, the few shapes settings
// take, and one error naming every variable that is wrong.
import * as z from 'zod/mini';
import en from 'zod/v4/locales/en.js';
import { problemsOf } from '../domain/problems';

// The mini build carries no messages of its own: the English ones name what is wrong with a setting.
z.config(en());

/** A whole number from the environment's text, within [min, max], `fallback` when unset. */
export const intSetting = (min: number, max: number, fallback: number) =>
  z._default(z.coerce.number().check(z.int(), z.minimum(min), z.maximum(max)), fallback);
export const nonEmpty = () => z.string().check(z.minLength(1));

export class ConfigError extends Error {}

export const parseEnv = <T extends z.ZodMiniType>(schema: T, env: NodeJS.ProcessEnv): z.infer<T> => {
  const parsed = schema.safeParse(env);
  if (parsed.success) return parsed.data;
  throw new ConfigError(`invalid configuration in the environment: ${problemsOf(parsed.error).join('; ')}`);
};
