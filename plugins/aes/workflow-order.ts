/**
 * The order in which an AES workflow's nodes run: a topological order of its edges that keeps the document's
 * order wherever the edges leave a choice, with warnings for dangling edges and cycles.
 */

/**
 * Indices of `nodeIds` in edge order: Kahn's algorithm, always taking the ready node that comes first in the
 * document, so a chain keeps its order and parallel branches keep the author's order.
 */
export function orderWorkflow(nodeIds: string[], edges: Array<{ from: string; to: string }>): { order: number[]; warnings: string[] } {
  // Fast path for what almost every published file is: a chain in document order (or no edges at all).
  if (edges.length === 0 || (edges.length === nodeIds.length - 1 && edges.every((edge, at) => edge.from === nodeIds[at] && edge.to === nodeIds[at + 1]) && new Set(nodeIds).size === nodeIds.length)) {
    return { order: nodeIds.map((_, index) => index), warnings: [] };
  }
  const warnings: string[] = [];
  const indexOf = new Map<string, number>();
  nodeIds.forEach((id, index) => {
    if (!indexOf.has(id)) indexOf.set(id, index);
  });
  const successors: number[][] = nodeIds.map(() => []);
  const inDegree = nodeIds.map(() => 0);
  const seen = new Set<string>();
  let dangling = 0;
  for (const edge of edges) {
    const from = indexOf.get(edge.from);
    const to = indexOf.get(edge.to);
    if (from === undefined || to === undefined) {
      dangling += 1;
      continue;
    }
    const key = `${from}>${to}`;
    if (from === to || seen.has(key)) continue;
    seen.add(key);
    successors[from].push(to);
    inDegree[to] += 1;
  }
  if (dangling) warnings.push(`${dangling} edge(s) name nodes that do not exist and were ignored`);

  const ready = inDegree.flatMap((degree, index) => (degree === 0 ? [index] : []));
  const order: number[] = [];
  while (ready.length) {
    const next = ready.shift()!;
    order.push(next);
    for (const successor of successors[next]) {
      inDegree[successor] -= 1;
      if (inDegree[successor] === 0) {
        // Keep `ready` sorted by document position (binary insertion).
        let low = 0;
        let high = ready.length;
        while (low < high) {
          const mid = (low + high) >> 1;
          if (ready[mid] < successor) low = mid + 1;
          else high = mid;
        }
        ready.splice(low, 0, successor);
      }
    }
  }
  if (order.length < nodeIds.length) {
    const placed = new Set(order);
    const cyclic = nodeIds.flatMap((_, index) => (placed.has(index) ? [] : [index]));
    warnings.push(`the workflow has a cycle through ${cyclic.map((index) => nodeIds[index]).join(', ')}; those nodes run once, in document order`);
    order.push(...cyclic);
  }
  return { order, warnings };
}
