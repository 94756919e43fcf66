/** For the auth tests: an AuthContext whose secrets are bound to one host. */
import { AppError } from '../../../../../shared/errors';
import type { SecretResolver } from '../../types';
import { Sensitive } from '../request';
import type { AuthContext } from './common';

export function authContext(values: Record<string, string>, host = 'api.example.com'): AuthContext & { asked: string[] } {
  const asked: string[] = [];
  const secrets: SecretResolver = {
    resolve(name, h) {
      asked.push(`${name}@${h}`);
      if (h !== host) throw new AppError('FORBIDDEN', `the secret '${name}' is not bound to '${h}'`);
      const v = values[name];
      if (v === undefined) throw new AppError('NOT_FOUND', `no secret named '${name}'`);
      return v;
    },
    values: () => Object.values(values),
  };
  return { hostname: host, secrets, sensitive: new Sensitive(), now: () => 1_700_000_000_000, asked };
}
