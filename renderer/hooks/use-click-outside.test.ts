import { describe, expect, it } from 'vitest';
import { isOutside } from './use-click-outside';

/** A node of a tree: it contains itself and everything below it, as DOM nodes do. */
class TreeNode {
  constructor(readonly parent?: TreeNode) {}
  contains(other: Node | null): boolean {
    for (let n = other as unknown as TreeNode | undefined; n; n = n.parent) if (n === this) return true;
    return false;
  }
}
const asNode = (n: TreeNode) => n as unknown as Node;

describe('isOutside', () => {
  const page = new TreeNode();
  const button = new TreeNode(page);
  const buttonIcon = new TreeNode(button);
  const panel = new TreeNode(page);
  const panelInput = new TreeNode(panel);
  const elsewhere = new TreeNode(page);

  it('is false for a press on one of the elements or anything inside them', () => {
    for (const target of [button, buttonIcon, panel, panelInput]) expect(isOutside(asNode(target), [panel, button])).toBe(false);
  });

  it('is true for a press anywhere else, the page around them included', () => {
    expect(isOutside(asNode(elsewhere), [panel, button])).toBe(true);
    expect(isOutside(asNode(page), [panel, button])).toBe(true);
  });

  it('counts an element that is not rendered (a null ref) as holding nothing', () => {
    expect(isOutside(asNode(panelInput), [null, button])).toBe(true);
    expect(isOutside(asNode(buttonIcon), [null, button])).toBe(false);
    expect(isOutside(asNode(elsewhere), [])).toBe(true);
  });
});
