/** Buffers and workspace files as the user sees them (routing itself is part of the platform). */
import { bufferHandlers } from './buffer-handlers';
import { defineModule } from '../platform/feature-module';

export const routingModule = defineModule({
  name: 'routing',
  start: ({ routing, workspaceDir, config }) => ({ api: undefined, handlers: bufferHandlers({ routing, workspaceDir, openPath: config.openPath }) }),
});
