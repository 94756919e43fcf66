/**
 * The task graph of a conversation laid out for drawing: the conversation (task 0) on top,
 * each task below the one that made it (dagre, top to bottom). Edges carry the documents
 * passed down with a task and handed back with its result.
 */
import dagre from '@dagrejs/dagre';
import type { Task } from '../../../shared/model/task';

export const NODE_W = 220;
export const NODE_H = 84;

export interface GraphNode {
  id: string;
  x: number;
  y: number;
  /** Task 0 is the conversation. */
  task?: Task;
}

export interface GraphEdge {
  id: string;
  source: string;
  target: string;
  /** Documents passed down (↓) and handed back (↑). */
  label: string;
  /** The parent waits on this task. */
  blocking: boolean;
}

export interface LaidOutGraph {
  nodes: GraphNode[];
  edges: GraphEdge[];
  width: number;
  height: number;
}

export function edgeLabel(t: Task): string {
  const down = t.documents.length ? `↓ ${t.documents.join(', ')}` : '';
  const up = t.resultDocuments?.length ? `↑ ${t.resultDocuments.join(', ')}` : '';
  return [down, up].filter(Boolean).join('  ');
}

export function layoutTaskGraph(rootId: string, tasks: readonly Task[]): LaidOutGraph {
  const g = new dagre.graphlib.Graph();
  g.setGraph({ rankdir: 'TB', nodesep: 40, ranksep: 70, marginx: 20, marginy: 20 });
  g.setDefaultEdgeLabel(() => ({}));
  g.setNode(rootId, { width: NODE_W, height: NODE_H });
  const ids = new Set([rootId, ...tasks.map((t) => t.id)]);
  for (const t of tasks) g.setNode(t.id, { width: NODE_W, height: NODE_H });
  // A task whose parent is unknown (a damaged record) hangs under the conversation.
  for (const t of tasks) g.setEdge(ids.has(t.parentId) ? t.parentId : rootId, t.id);
  dagre.layout(g);
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const nodes: GraphNode[] = g.nodes().map((id) => {
    const n = g.node(id);
    const task = byId.get(id);
    return { id, x: n.x - NODE_W / 2, y: n.y - NODE_H / 2, ...(task ? { task } : {}) };
  });
  const edges: GraphEdge[] = tasks.map((t) => ({
    id: `e-${t.id}`,
    source: ids.has(t.parentId) ? t.parentId : rootId,
    target: t.id,
    label: edgeLabel(t),
    blocking: t.status === 'running' || t.status === 'waiting' || t.status === 'blocked',
  }));
  const graph = g.graph();
  return { nodes, edges, width: graph.width ?? NODE_W, height: graph.height ?? NODE_H };
}
