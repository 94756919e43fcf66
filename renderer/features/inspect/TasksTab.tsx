/**
 * Inspect → Tasks: the task graph of the open conversation (docs/design/orchestration.md), live
 * while it runs: the conversation (task 0) on top, each delegation and question below the task
 * that made it, with its status, the documents on its edge, and its timeline beside the graph.
 */
import { Background, Controls, Handle, Position, ReactFlow, type Edge, type Node, type NodeProps } from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { useMemo, useState } from 'react';
import type { Task } from '../../../shared/model/task';
import { useOp } from '../../api/hooks';
import { EmptyState } from '../../components/EmptyState';
import { QueryError } from '../../components/QueryError';
import { inspectStrings as s } from '../../i18n/inspect-strings';
import { useInspectedConversation } from './ConversationBar';
import { TaskRows } from '../chat/TaskViews';
import { layoutTaskGraph, NODE_H, NODE_W } from './task-graph';

export function TasksTab() {
  const conversationId = useInspectedConversation();
  if (!conversationId) {
    return (
      <EmptyState title={s.tasks.noConversationTitle} testId="inspect-empty-tasks">
        {s.tasks.noConversation}
      </EmptyState>
    );
  }
  return <TaskGraphView key={conversationId} conversationId={conversationId} />;
}

type TaskNodeData = { task?: Task; title: string; selected: boolean };

function TaskNode({ data }: NodeProps<Node<TaskNodeData>>) {
  const t = data.task;
  return (
    <div className={`task-node${data.selected ? ' selected' : ''}`} data-testid="task-node" data-status={t?.status ?? 'root'} style={{ width: NODE_W, height: NODE_H }}>
      <Handle type="target" position={Position.Top} isConnectable={false} />
      <div className="task-node-title">{data.title}</div>
      {t ? (
        <>
          <span className={`badge ${STATUS_CLASS[t.status]}`}>{s.tasks.status[t.status]}</span>
          <div className="task-node-request muted" title={t.request}>
            {t.request}
          </div>
        </>
      ) : (
        <span className="muted">{s.tasks.root}</span>
      )}
      <Handle type="source" position={Position.Bottom} isConnectable={false} />
    </div>
  );
}

const STATUS_CLASS: Record<Task['status'], string> = { running: 'waiting', blocked: 'waiting', waiting: 'waiting', done: 'ok', failed: 'danger', cancelled: '' };
const nodeTypes = { task: TaskNode };

function TaskGraphView({ conversationId }: { conversationId: string }) {
  const graph = useOp('tasks.graph', { conversationId });
  const [picked, setPicked] = useState<string | null>(null);
  const laid = useMemo(() => (graph.data ? layoutTaskGraph(graph.data.rootId, graph.data.tasks) : null), [graph.data]);
  if (graph.error) return <QueryError error={graph.error} onRetry={() => void graph.refetch()} />;
  if (!graph.data || !laid) return null;
  if (graph.data.tasks.length === 0) {
    return (
      <EmptyState title={s.tasks.emptyTitle} testId="inspect-empty-tasks">
        {s.tasks.empty}
      </EmptyState>
    );
  }
  const nodes: Node<TaskNodeData>[] = laid.nodes.map((n) => ({
    id: n.id,
    type: 'task',
    position: { x: n.x, y: n.y },
    data: { ...(n.task ? { task: n.task } : {}), title: n.task ? s.tasks.nodeTitle(n.task) : s.tasks.conversation, selected: picked === n.id },
    draggable: false,
    connectable: false,
  }));
  const edges: Edge[] = laid.edges.map((e) => ({
    id: e.id,
    source: e.source,
    target: e.target,
    label: e.label || undefined,
    animated: e.blocking,
    style: e.blocking ? { strokeDasharray: '6 4' } : undefined,
  }));
  const chosen = graph.data.tasks.find((t) => t.id === picked);
  return (
    <div className="tasks-tab" data-testid="inspect-tasks">
      <div className="task-graph" role="figure" aria-label={s.tasks.graphLabel(graph.data.tasks.length)}>
        <ReactFlow
          nodes={nodes}
          edges={edges}
          nodeTypes={nodeTypes}
          fitView
          nodesDraggable={false}
          nodesConnectable={false}
          onNodeClick={(_, n) => setPicked(n.id === graph.data!.rootId ? null : n.id)}
          proOptions={{ hideAttribution: true }}
        >
          <Background />
          <Controls showInteractive={false} />
        </ReactFlow>
      </div>
      <aside className="task-details" aria-label={s.tasks.detailsLabel}>
        <ul className="task-list" aria-label={s.tasks.listLabel}>
          {graph.data.tasks.map((t) => (
            <li key={t.id}>
              <button type="button" className={picked === t.id ? 'link-button active' : 'link-button'} aria-pressed={picked === t.id} onClick={() => setPicked(t.id)} data-testid="task-pick">
                {s.tasks.nodeTitle(t)} — {s.tasks.status[t.status]}
              </button>
            </li>
          ))}
        </ul>
        {chosen ? <TaskDetails task={chosen} /> : <p className="muted">{s.tasks.pick}</p>}
      </aside>
    </div>
  );
}

function TaskDetails({ task }: { task: Task }) {
  return (
    <section className="task-detail" data-testid="task-detail">
      <h3>{s.tasks.nodeTitle(task)}</h3>
      <dl className="meta-list">
        <dt>{s.tasks.request}</dt>
        <dd className="pre-wrap">{task.request}</dd>
        {task.documents.length > 0 && (
          <>
            <dt>{s.tasks.documentsDown}</dt>
            <dd>{task.documents.join(', ')}</dd>
          </>
        )}
        {task.result !== undefined && (
          <>
            <dt>{task.kind === 'question' ? s.tasks.answer(task.answeredBy) : s.tasks.result}</dt>
            <dd className="pre-wrap">{task.result}</dd>
          </>
        )}
        {task.resultDocuments?.length ? (
          <>
            <dt>{s.tasks.documentsUp}</dt>
            <dd>{task.resultDocuments.join(', ')}</dd>
          </>
        ) : null}
        {task.error && (
          <>
            <dt>{s.tasks.why}</dt>
            <dd>{task.error}</dd>
          </>
        )}
      </dl>
      {task.kind === 'agent' && (
        <>
          <h4>{s.tasks.timeline}</h4>
          <TaskRows taskId={task.id} />
        </>
      )}
    </section>
  );
}
