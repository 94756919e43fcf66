/** Secrets: names and hosts are listed; values go in and never come back out. */
import type { SecretInfo } from '../../../shared/contract';
import type { Handler } from '../router';
import type { SecretStore } from './secret-store';

type SecretOps = 'secrets.list' | 'secrets.set' | 'secrets.setHosts' | 'secrets.delete';

/** Only the public fields: an `unreadable` flag or anything else a store keeps stays inside. */
const info = (s: SecretInfo): SecretInfo => ({ name: s.name, hosts: s.hosts, createdAt: s.createdAt, updatedAt: s.updatedAt });

export function secretsHandlers(secrets: SecretStore): { [N in SecretOps]: Handler<N> } {
  return {
    'secrets.list': () => secrets.list().map(info),
    'secrets.set': async ({ name, value, hosts }) => info(await secrets.set(name, value, hosts)),
    'secrets.setHosts': async ({ name, hosts }) => info(await secrets.setHosts(name, hosts)),
    'secrets.delete': async ({ name }) => {
      await secrets.delete(name);
      return { deleted: true as const };
    },
  };
}
