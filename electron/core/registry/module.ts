/** The registry's operations: bundles, tools, search, usage counts (the registry itself is part of the platform). */
import { registryHandlers } from '../handlers/registry-handlers';
import { defineModule } from '../platform/module';

export const registryModule = defineModule({
  name: 'registry',
  start: ({ registry }) => ({ api: undefined, handlers: registryHandlers(registry) }),
});
