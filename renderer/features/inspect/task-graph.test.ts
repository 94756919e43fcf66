import { describe, expect, it } from 'vitest';
import type { Task } from '../../../shared/model/task';
import { NODE_H, edgeLabel, layoutTaskGraph } from './task-graph';

const task = (over: Partial<Task>): Task => ({
  id: 't1',
  rootId: 'root',
  parentId: 'root',
  number: 1,
  kind: 'agent',
  agent: 'analyst',
  status: 'done',
  request: 'r',
  documents: [],
  depth: 1,
  invocationId: 'i',
  createdAt: '2026-11-24T10:00:00Z',
  ...over,
});

describe('the task graph layout', () => {
  it('puts each task below the one that made it, with documents on the edges', () => {
    const tasks = [
      task({ id: 'a', number: 1, documents: ['data/sales.csv'], resultDocuments: ['reports/sales.md'] }),
      task({ id: 'w', number: 2, agent: 'writer', parentId: 'a', depth: 2, status: 'running' }),
      task({ id: 'q', number: 3, kind: 'question', parentId: 'a', depth: 1, status: 'waiting' }),
    ];
    const g = layoutTaskGraph('root', tasks);
    const y = (id: string) => g.nodes.find((n) => n.id === id)!.y;
    expect(g.nodes).toHaveLength(4);
    expect(y('root')).toBeLessThan(y('a'));
    expect(y('a')).toBeLessThan(y('w'));
    expect(y('w') - y('a')).toBeGreaterThanOrEqual(NODE_H);
    expect(g.nodes.find((n) => n.id === 'root')!.task).toBeUndefined();
    expect(g.edges.map((e) => [e.source, e.target, e.blocking])).toEqual([
      ['root', 'a', false],
      ['a', 'w', true],
      ['a', 'q', true],
    ]);
    expect(g.edges[0]!.label).toBe('↓ data/sales.csv  ↑ reports/sales.md');
    // Two children of one task sit side by side, not on top of each other.
    const w = g.nodes.find((n) => n.id === 'w')!;
    const q = g.nodes.find((n) => n.id === 'q')!;
    expect(Math.abs(w.x - q.x)).toBeGreaterThan(100);
  });

  it('a task whose parent is unknown hangs under the conversation', () => {
    const g = layoutTaskGraph('root', [task({ id: 'x', parentId: 'gone' })]);
    expect(g.edges[0]).toMatchObject({ source: 'root', target: 'x' });
    expect(edgeLabel(task({}))).toBe('');
  });
});
