/** Bundles in and out: ZIP export and import, OpenAPI and curl imports (with their test cases). */
import { transferHandlers } from './transfer-handlers';
import { defineModule } from '../platform/feature-module';
import { testcasesModule } from '../testcases/module';

export const transferModule = defineModule({
  name: 'transfer',
  start: ({ registry, use }) => ({ api: undefined, handlers: transferHandlers({ store: registry.store, testCases: use(testcasesModule).testCases }) }),
});
