/** The secrets' operations (the secret store itself is part of the platform). */
import { secretsHandlers } from './secrets-handlers';
import { defineModule } from '../platform/feature-module';

export const secretsModule = defineModule({
  name: 'secrets',
  start: ({ secrets }) => ({ api: undefined, handlers: secretsHandlers(secrets) }),
});
