/**
 * Memory (docs/design/memory.md): blocks and recall entries, the data sources that feed them
 * (FileSources: the `file` tool, registered while one exists; folder watchers), and the consent
 * cards Partner and Human blocks ask with. A task's memory and grant come from its agent
 * profile. Every model step is given the pinned blocks; a conversation's memory goes with it.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ToolCard } from '../../../shared/model/conversation';
import { memoryHandlers } from './memory-handlers';
import { memorySourceHandlers } from './memory-source-handlers';
import type { LocalFunction } from '../invoke/types';
import { defineModule } from '../platform/feature-module';
import { agentProfilesModule } from '../agent-profiles/module';
import { actorFor } from './actors';
import { ChatConsent } from './consent-cards';
import { loadedBlockNote, pinnedContext } from './memory-context';
import { MemoryService, type Actor } from './memory-service';
import { MEMORY_BUNDLE_ID, MEMORY_CALL_TIMEOUT_MS, registerMemoryTools } from './memory-tools';
import { FILE_FUNCTION_ID, SourceManager } from './sources/source-manager';
import { createSourceTools, SOURCE_FUNCTION_ID } from './sources/source-tools';

interface MemoryApi {
  memory: MemoryService;
  sources: SourceManager;
  actorOf(ownerId: string): Actor;
  tools: { source: LocalFunction; file: LocalFunction };
}

/** Whether the memory sources file lists a FileSource (read before the registry opens; a bad file: no). */
function listsFileSource(file: string): boolean {
  try {
    const data = JSON.parse(fs.readFileSync(file, 'utf8')) as { sources?: { kind?: unknown }[] };
    return Array.isArray(data.sources) && data.sources.some((s) => s?.kind === 'files');
  } catch {
    return false;
  }
}

const SOURCES_FILE = 'memory-sources.json';

export const memoryModule = defineModule({
  name: 'memory',
  functions: (functions, api: () => MemoryApi, { dataDir }) => {
    registerMemoryTools(functions, { memory: () => api().memory, actorOf: (id) => api().actorOf(id) });
    functions.register(SOURCE_FUNCTION_ID, (ctx, args, signal) => api().tools.source(ctx, args, signal));
    // The `file` tool exists while a FileSource does. The sources start after the registry has
    // indexed its tools, so a configured one registers the tool now: it is indexed as usable
    // from the start (the sources correct it if that source does not start).
    if (listsFileSource(path.join(dataDir, SOURCES_FILE))) {
      functions.register(FILE_FUNCTION_ID, Object.assign((ctx: Parameters<LocalFunction>[0], args: Record<string, unknown>, signal: AbortSignal) => api().tools.file(ctx, args, signal), { timeoutMs: MEMORY_CALL_TIMEOUT_MS }));
    }
  },
  start: async ({ dataDir, now, problems, events, conversations, functions, registry, config, turnContributions, use, ifStartFails }) => {
    const agentProfiles = use(agentProfilesModule);
    const changed = (owner: string, label?: string) => events.emit('memory.changed', { owner, ...(label !== undefined ? { label } : {}) });
    // Partner and Human blocks ask the user with a consent card on the call's card in the chat.
    const consent = new ChatConsent({
      cardOf: (cid, invocationId) => {
        const rows = conversations.messages(cid);
        for (let i = rows.length - 1; i >= 0; i--) {
          const m = rows[i]!;
          if (m.role === 'tool' && m.tool?.invocationId === invocationId) return { card: m.tool, turnId: m.turnId };
        }
        return undefined;
      },
      append: (cid, row) => void conversations.addMessages(cid, [{ role: 'tool', text: row.text, tool: row.card, ...(row.turnId ? { turnId: row.turnId } : {}) }]),
    });
    const memory = MemoryService.open({ file: path.join(dataDir, 'memory.sqlite'), now, problems: (p) => problems.report(p), onChange: changed, consent: () => consent });
    ifStartFails(() => memory.close());
    const actorOf = (ownerId: string) =>
      actorFor(ownerId, {
        agentOf: (cid) => {
          const task = conversations.has(cid) ? conversations.taskOf(cid) : undefined;
          if (task?.kind !== 'agent') return undefined;
          const profile = agentProfiles.list().find((v) => v.profile.name === task.agent)?.profile;
          return { name: task.agent, memory: profile?.memory };
        },
      });
    const sourceTools = createSourceTools({ sources: () => sources, actorOf });
    const sources: SourceManager = new SourceManager({
      file: path.join(dataDir, SOURCES_FILE),
      memory,
      now,
      functions,
      // Its consent cards wait as long as the block tools' do (not the dispatcher's default minute).
      fileFunction: Object.assign(sourceTools.file, { timeoutMs: MEMORY_CALL_TIMEOUT_MS }),
      ...(config.streams === false ? { streams: false } : {}),
      changed,
      // The file tool comes and goes with FileSources: the search index learns it before the UI asks.
      sourcesChanged: async () => {
        await registry.syncAll();
        events.emit('memory.sources.changed', {});
      },
      problems: (p) => problems.report(p),
    });
    memory.sources = sources;
    const fileToolBefore = functions.has(FILE_FUNCTION_ID);
    ifStartFails(() => sources.close());
    await sources.open();
    // The registry indexed its tools before the sources opened: when they changed whether the
    // `file` tool exists (a listed FileSource did not start), the index learns it now.
    if (functions.has(FILE_FUNCTION_ID) !== fileToolBefore) await registry.syncAll();
    // What a model is given of the memory on every step: its pinned blocks; an unpinned block only in the batch that loaded it.
    turnContributions.push({
      context: (cid) => pinnedContext(memory.blocks, actorOf(cid).owner),
      earlierLoad: (card: ToolCard) => loadedBlockNote(card, (id) => id === MEMORY_BUNDLE_ID),
    });
    return {
      api: { memory, sources, actorOf, tools: sourceTools },
      handlers: { ...memoryHandlers(memory, changed, consent), ...memorySourceHandlers(sources) },
      // A conversation's memory (blocks, recall entries) goes with it.
      conversationDeleted: (conversationId) => {
        memory.deleteConversation(conversationId);
      },
      // Questions still open are answered deny before the turns stop.
      stop: () => consent.close(),
      close: async () => {
        // No watcher outlives the app.
        await sources.close();
        memory.close();
      },
    };
  },
});
