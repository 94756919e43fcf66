import { describe, expect, it } from 'vitest';
import { approvalContext, approvalOf, type ApprovalSubject } from './tool-approval';

const B = 'b-user';
const local = (slug: string, functionId: string, more: Partial<ApprovalSubject> = {}): ApprovalSubject => ({ bundleId: B, slug, version: '1', type: 'local', local: { functionId }, isBuiltIn: false, ...more });
const sequence = (slug: string, steps: string[]): ApprovalSubject =>
  ({ bundleId: B, slug, version: '1', type: 'sequence', isBuiltIn: false, sequence: { steps: steps.map((s, i) => ({ id: `s${i}`, tool: { bundleId: B, slug: s, version: '1' }, args: {} })) } }) as ApprovalSubject;

const writefile = local('writefile', 'files.write', { bundleId: 'b-files', isBuiltIn: true, requiresApproval: true });
const readfile = local('readfile', 'files.read', { bundleId: 'b-files', isBuiltIn: true });

describe('approvalOf', () => {
  it('a tool asks when it says so', () => {
    const ctx = approvalContext(() => []);
    expect(approvalOf(local('x', 'text.count', { requiresApproval: true }), ctx)).toEqual({ reason: { kind: 'tool' } });
    expect(approvalOf(local('x', 'text.count'), ctx)).toBeNull();
  });

  it('a local tool asks when a built-in tool running its function asks; a user tool cannot make a function ask', () => {
    const userAsks = local('my-read', 'files.read', { requiresApproval: true });
    const ctx = approvalContext(() => [writefile, readfile, userAsks]);
    expect(approvalOf(local('summarize', 'files.write'), ctx)).toEqual({ reason: { kind: 'function', functionId: 'files.write' } });
    expect(approvalOf(local('peek', 'files.read'), ctx)).toBeNull();
  });

  it('a sequence asks when a step’s tool asks, at any depth, and a cycle ends', () => {
    const summarize = local('summarize', 'files.write');
    const inner = sequence('inner', ['count', 'summarize']);
    const outer = sequence('outer', ['inner']);
    const loop = sequence('loop', ['loop', 'count']);
    const ctx = approvalContext(() => [writefile, summarize, inner, outer, loop, local('count', 'text.count')]);
    expect(approvalOf(inner, ctx)).toEqual({ reason: { kind: 'step', step: 's1', tool: 'summarize@1' } });
    expect(approvalOf(outer, ctx)).toEqual({ reason: { kind: 'step', step: 's0', tool: 'inner@1' } });
    expect(approvalOf(loop, ctx)).toBeNull();
    expect(approvalOf(sequence('dangling', ['nowhere']), ctx)).toBeNull();
  });

  it('an MCP tool that asks carries its server’s hints, {} when it gave none', () => {
    const ctx = approvalContext(() => []);
    const mcp = (annotations?: object): ApprovalSubject => ({ bundleId: B, slug: 'm', version: '1', type: 'mcp', isBuiltIn: false, requiresApproval: true, mcp: { serverTool: 'm', ...(annotations ? { annotations } : {}) } });
    expect(approvalOf(mcp(), ctx)).toEqual({ reason: { kind: 'tool' }, mcpHints: {} });
    expect(approvalOf(mcp({ destructiveHint: true, openWorldHint: true }), ctx)).toEqual({ reason: { kind: 'tool' }, mcpHints: { destructiveHint: true, openWorldHint: true } });
  });

  it('reads the registry only when a tool needs it', () => {
    let reads = 0;
    const ctx = approvalContext(() => {
      reads++;
      return [writefile];
    });
    approvalOf(local('x', 'text.count', { requiresApproval: true }), ctx);
    expect(reads).toBe(0);
    approvalOf(local('y', 'files.write'), ctx);
    approvalOf(local('z', 'files.write'), ctx);
    expect(reads).toBe(1);
  });
});
