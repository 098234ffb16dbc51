// Owns what the domain needs from storage, stated as small interfaces; adapters in shared/adapters implement them.
import type { TestAccount } from './account';
import type { ApiKey } from './apiKey';
import type { Check } from './check';

export interface CheckStore {
  /** Creates the check once; throws ConflictError if its id is already taken. */
  create(check: Check): Promise<void>;
  get(checkId: string): Promise<Check | undefined>;
}

export interface ApiKeyStore {
  findByHash(keyHash: string): Promise<ApiKey | undefined>;
  /** Stores a new key once; throws ConflictError if it exists. */
  create(key: ApiKey): Promise<void>;
  list(): Promise<ApiKey[]>;
  /** Returns false when no key has that id. */
  revoke(keyId: string): Promise<boolean>;
}

export interface AccountRegistry {
  activeInScope(scope: string): Promise<TestAccount[]>;
  list(): Promise<TestAccount[]>;
  put(account: TestAccount): Promise<void>;
  remove(email: string): Promise<void>;
}
