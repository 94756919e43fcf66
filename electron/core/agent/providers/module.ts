/** Model providers: their settings and keys, and the clients turns, summaries and extraction use. */
import { providerHandlers } from './provider-handlers';
import { defineModule } from '../../platform/feature-module';
import { ProviderClients } from './client-factory';
import { ProviderStore } from './provider-store';

export const providersModule = defineModule({
  name: 'providers',
  start: async ({ dataDir, secrets, now, problems, events }) => {
    const providers = await ProviderStore.open({ dataDir, secrets, now, problems: (p) => problems.report(p), onChange: (ids) => events.emit('providers.changed', { ids }) });
    const clients = new ProviderClients({ providers, secrets });
    return { api: { providers, clients }, handlers: providerHandlers({ providers, clients }) };
  },
});
