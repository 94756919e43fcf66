/** Bundles in and out: ZIP export and import (with their test cases and eval cases), OpenAPI and curl imports. */
import { transferHandlers } from './transfer-handlers';
import { defineModule } from '../platform/feature-module';
import { testcasesModule } from '../testcases/module';
import { evalsModule } from '../evals/module';

export const transferModule = defineModule({
  name: 'transfer',
  start: ({ registry, use }) => ({ api: undefined, handlers: transferHandlers({ store: registry.store, testCases: use(testcasesModule).testCases, evalCases: use(evalsModule).cases }) }),
});
