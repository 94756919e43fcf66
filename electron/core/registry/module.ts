/** The registry's operations: bundles, tools, search, usage counts (the registry itself is part of the platform). */
import { registryHandlers } from './registry-handlers';
import { defineModule } from '../platform/feature-module';

export const registryModule = defineModule({
  name: 'registry',
  start: ({ registry }) => ({ api: undefined, handlers: registryHandlers(registry) }),
});
