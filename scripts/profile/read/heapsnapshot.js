'use strict';
// Reads V8 heap snapshots (.heapsnapshot, as written by v8.writeHeapSnapshot)
// and compares two of them the way Chrome DevTools' Comparison view does, by
// constructor, adding what that view leaves for you to dig out: the retained
// size each constructor gained (from the dominator tree), and the chain of
// references that keeps a grown object alive, down to a variable in the
// learner's own file.

/** Flat arrays → a graph with typed arrays, plus the strings needed to read it. */
function parseSnapshot(json) {
  const { meta } = json.snapshot;
  const nf = meta.node_fields.length;
  const ef = meta.edge_fields.length;
  const nodeTypes = meta.node_types[0];
  const edgeTypes = meta.edge_types[0];
  const f = (name) => meta.node_fields.indexOf(name);
  const e = (name) => meta.edge_fields.indexOf(name);
  const [TYPE, NAME, ID, SIZE, EDGES] = ['type', 'name', 'id', 'self_size', 'edge_count'].map(f);
  const [ETYPE, ENAME, ETO] = ['type', 'name_or_index', 'to_node'].map(e);

  const count = json.nodes.length / nf;
  const type = new Uint8Array(count);
  const name = new Uint32Array(count);
  const id = new Uint32Array(count);
  const size = new Float64Array(count);
  const firstEdge = new Uint32Array(count + 1);
  let edgeIndex = 0;
  for (let i = 0; i < count; i++) {
    const o = i * nf;
    type[i] = json.nodes[o + TYPE];
    name[i] = json.nodes[o + NAME];
    id[i] = json.nodes[o + ID];
    size[i] = json.nodes[o + SIZE];
    firstEdge[i] = edgeIndex;
    edgeIndex += json.nodes[o + EDGES];
  }
  firstEdge[count] = edgeIndex;
  const edgeCount = edgeIndex;
  const edgeType = new Uint8Array(edgeCount);
  const edgeName = new Uint32Array(edgeCount);
  const edgeTo = new Uint32Array(edgeCount);
  for (let k = 0; k < edgeCount; k++) {
    edgeType[k] = json.edges[k * ef + ETYPE];
    edgeName[k] = json.edges[k * ef + ENAME];
    edgeTo[k] = json.edges[k * ef + ETO] / nf;
  }
  // Where each function was defined (snapshots from V8 7.x on: node, script, line, column).
  const locations = new Map();
  const lf = meta.location_fields || [];
  if (json.locations && lf.length) {
    const [OBJ, LINE, COL] = ['object_index', 'line', 'column'].map((x) => lf.indexOf(x));
    for (let k = 0; k < json.locations.length; k += lf.length) {
      locations.set(json.locations[k + OBJ] / nf, { line: json.locations[k + LINE] + 1, column: json.locations[k + COL] + 1 });
    }
  }
  return { count, type, name, id, size, firstEdge, edgeType, edgeName, edgeTo, strings: json.strings, nodeTypes, edgeTypes, locations };
}

/** The node an edge named `edge` of node `v` points to, or -1. */
function follow(g, v, edge) {
  for (let k = g.firstEdge[v]; k < g.firstEdge[v + 1]; k++) {
    const t = g.edgeTypes[g.edgeType[k]];
    if (t !== 'element' && t !== 'hidden' && g.strings[g.edgeName[k]] === edge) return g.edgeTo[k];
  }
  return -1;
}

/** The nodes edges of `v` point to, with each edge's type and name. */
function* edgesOf(g, v) {
  for (let k = g.firstEdge[v]; k < g.firstEdge[v + 1]; k++) {
    const type = g.edgeTypes[g.edgeType[k]];
    yield { to: g.edgeTo[k], type, name: type === 'element' || type === 'hidden' ? g.edgeName[k] : g.strings[g.edgeName[k]] };
  }
}

/**
 * The async functions waiting for the one suspended in Generator `gen`,
 * innermost first: its promise's reactions are closures whose context
 * belongs to the async function that awaits it, and so on outwards. (What a
 * debugger calls the async stack, read from the heap.)
 * @returns {number[]} Generator nodes
 */
function awaitingGenerators(g, gen, limit = 8) {
  const found = [];
  let current = gen;
  while (found.length < limit) {
    let next = -1;
    for (const promise of edgesOf(g, current)) {
      if (classOf(g, promise.to) !== 'Promise') continue;
      const reactions = follow(g, promise.to, 'reactions_or_result');
      if (reactions < 0) continue;
      for (const reaction of edgesOf(g, reactions)) {
        const candidates = g.nodeTypes[g.type[reaction.to]] === 'closure' ? [reaction.to] : [...edgesOf(g, reaction.to)].map((e) => e.to).filter((x) => g.nodeTypes[g.type[x]] === 'closure');
        for (const closure of candidates) {
          const context = follow(g, closure, 'context');
          const outer = context < 0 ? -1 : follow(g, context, 'extension');
          if (outer >= 0 && outer !== current && classOf(g, outer) === 'Generator') next = outer;
          if (next >= 0) break;
        }
        if (next >= 0) break;
      }
      if (next >= 0) break;
    }
    if (next < 0 || found.includes(next)) break;
    found.push(next);
    current = next;
  }
  return found;
}

/**
 * For a closure, or a suspended async function (its Generator object): the
 * function's name, and the file and line where it is defined, when the
 * snapshot records them.
 * @returns {{name:string, file:string|null, line:number|null}|null}
 */
function functionOf(g, v) {
  const closure = g.nodeTypes[g.type[v]] === 'closure' ? v : follow(g, v, 'function');
  if (closure < 0) return null;
  const shared = follow(g, closure, 'shared');
  const script = shared < 0 ? -1 : [follow(g, shared, 'script'), follow(g, shared, 'script_or_debug_info')].find((x) => x >= 0) ?? -1;
  const file = script < 0 ? null : g.strings[g.name[script]] || null;
  const at = g.locations.get(closure);
  return { name: g.strings[g.name[closure]] || '', file, line: at ? at.line : null };
}

/** DevTools' grouping: objects by constructor, everything else by kind. */
function classOf(g, i) {
  const t = g.nodeTypes[g.type[i]];
  if (t === 'object' || t === 'native') return g.strings[g.name[i]];
  if (t === 'closure') return '(closure)';
  if (t === 'hidden' || t === 'object shape') return '(system)';
  if (t.endsWith('string')) return '(string)';
  return `(${t})`;
}

function isWeak(g, k) {
  return g.edgeTypes[g.edgeType[k]] === 'weak';
}

/**
 * Immediate dominators (Cooper, Harvey & Kennedy, "A Simple, Fast Dominance
 * Algorithm") and retained sizes. Node 0 is the snapshot's synthetic root.
 */
function dominators(g) {
  const n = g.count;
  // Iterative DFS for a postorder numbering of everything reachable.
  const post = new Int32Array(n).fill(-1);
  const order = [];
  const visited = new Uint8Array(n);
  const stack = [0];
  const cursor = new Uint32Array(n);
  visited[0] = 1;
  for (let i = 0; i < n; i++) cursor[i] = g.firstEdge[i];
  while (stack.length) {
    const v = stack[stack.length - 1];
    if (cursor[v] < g.firstEdge[v + 1]) {
      const k = cursor[v]++;
      if (isWeak(g, k)) continue;
      const w = g.edgeTo[k];
      if (!visited[w]) {
        visited[w] = 1;
        stack.push(w);
      }
    } else {
      stack.pop();
      post[v] = order.length;
      order.push(v);
    }
  }
  // Predecessors among reachable nodes.
  const predCount = new Uint32Array(n + 1);
  for (let v = 0; v < n; v++) {
    if (!visited[v]) continue;
    for (let k = g.firstEdge[v]; k < g.firstEdge[v + 1]; k++) if (!isWeak(g, k) && visited[g.edgeTo[k]]) predCount[g.edgeTo[k] + 1]++;
  }
  for (let i = 0; i < n; i++) predCount[i + 1] += predCount[i];
  const preds = new Uint32Array(predCount[n]);
  const fill = predCount.slice(0, n);
  for (let v = 0; v < n; v++) {
    if (!visited[v]) continue;
    for (let k = g.firstEdge[v]; k < g.firstEdge[v + 1]; k++) {
      const w = g.edgeTo[k];
      if (!isWeak(g, k) && visited[w]) preds[fill[w]++] = v;
    }
  }

  const idom = new Int32Array(n).fill(-1);
  idom[0] = 0;
  const intersect = (a, b) => {
    while (a !== b) {
      while (post[a] < post[b]) a = idom[a];
      while (post[b] < post[a]) b = idom[b];
    }
    return a;
  };
  for (let changed = true; changed; ) {
    changed = false;
    for (let r = order.length - 2; r >= 0; r--) {
      const v = order[r];
      let dom = -1;
      for (let p = predCount[v]; p < predCount[v + 1]; p++) {
        const u = preds[p];
        if (idom[u] === -1) continue;
        dom = dom === -1 ? u : intersect(u, dom);
      }
      if (dom !== -1 && idom[v] !== dom) {
        idom[v] = dom;
        changed = true;
      }
    }
  }
  // Retained size: own size plus everything it dominates (postorder = children first).
  const retained = Float64Array.from(g.size);
  for (const v of order) if (v !== 0 && idom[v] >= 0) retained[idom[v]] += retained[v];
  return { idom, retained, reachable: visited, order };
}

/** Per constructor: instance count, shallow size, retained size. */
function summarize(g) {
  const { idom, retained, reachable, order } = dominators(g);
  const classIds = new Map();
  const classOfNode = new Int32Array(g.count);
  for (let i = 0; i < g.count; i++) {
    const c = classOf(g, i);
    if (!classIds.has(c)) classIds.set(c, classIds.size);
    classOfNode[i] = classIds.get(c);
  }
  // A constructor's retained size counts each instance that is not itself
  // inside another instance of the same constructor (no double counting).
  // Walk the dominator tree top-down, keeping how many of each class sit on
  // the current path.
  const children = new Map();
  for (const v of order) if (v !== 0 && idom[v] >= 0) (children.get(idom[v]) || children.set(idom[v], []).get(idom[v])).push(v);
  const onPath = new Int32Array(classIds.size);
  const topLevel = new Uint8Array(g.count);
  const stack = [[0, false]];
  while (stack.length) {
    const [v, leaving] = stack.pop();
    const c = classOfNode[v];
    if (leaving) {
      onPath[c]--;
      continue;
    }
    if (onPath[c] === 0) topLevel[v] = 1;
    onPath[c]++;
    stack.push([v, true]);
    for (const w of children.get(v) || []) stack.push([w, false]);
  }
  const byClass = new Map();
  for (let i = 1; i < g.count; i++) {
    if (!reachable[i]) continue;
    const name = classOf(g, i);
    const entry = byClass.get(name) || { name, count: 0, shallow: 0, retained: 0 };
    entry.count++;
    entry.shallow += g.size[i];
    if (topLevel[i]) entry.retained += retained[i];
    byClass.set(name, entry);
  }
  const totalSize = [...byClass.values()].reduce((sum, c) => sum + c.shallow, 0);
  return { byClass, totalSize };
}

/**
 * Compares two snapshots of the same process.
 * @returns {{before, after, rows: Array<{name, countDelta, shallowDelta, retainedDelta, count, retained}>}}
 */
function compareSummaries(before, after) {
  const names = new Set([...before.byClass.keys(), ...after.byClass.keys()]);
  const zero = { count: 0, shallow: 0, retained: 0 };
  const rows = [...names].map((name) => {
    const a = before.byClass.get(name) || zero;
    const b = after.byClass.get(name) || zero;
    return {
      name,
      count: b.count,
      countDelta: b.count - a.count,
      shallowDelta: b.shallow - a.shallow,
      retained: b.retained,
      retainedDelta: b.retained - a.retained,
    };
  });
  return { totalBefore: before.totalSize, totalAfter: after.totalSize, rows };
}

/**
 * The chain of references from a GC root to one instance of `className`
 * that is new in `after` (its id is absent from `beforeIds`), shortest first.
 * The instance is one of those with the most common holder: a leak keeps its
 * objects in one place (a Set's table, an array), while the few new objects
 * of a short or slow run that are not leaked (a request in flight, the
 * snapshot request itself) each sit somewhere else.
 * @returns {Array<{edge:string, edgeType:string, node:string}>} root first
 */
function retainerPath(g, className, beforeIds) {
  // Breadth-first from the root over strong edges, remembering how we came.
  const via = new Int32Array(g.count).fill(-1);
  const from = new Int32Array(g.count).fill(-1);
  const seen = new Uint8Array(g.count);
  seen[0] = 1;
  let frontier = [0];
  while (frontier.length) {
    const next = [];
    for (const v of frontier) {
      for (let k = g.firstEdge[v]; k < g.firstEdge[v + 1]; k++) {
        const t = g.edgeTypes[g.edgeType[k]];
        if (t === 'weak' || t === 'shortcut') continue;
        const w = g.edgeTo[k];
        if (seen[w]) continue;
        seen[w] = 1;
        via[w] = k;
        from[w] = v;
        next.push(w);
      }
    }
    frontier = next;
  }
  const byHolder = new Map(); // holder node → {count, one new instance it holds}
  for (let i = 1; i < g.count; i++) {
    if (!seen[i] || classOf(g, i) !== className || beforeIds.has(g.id[i])) continue;
    const entry = byHolder.get(from[i]) || { count: 0, node: i };
    entry.count++;
    byHolder.set(from[i], entry);
  }
  if (!byHolder.size) return [];
  const target = [...byHolder.values()].reduce((best, e) => (e.count > best.count ? e : best)).node;
  const path = [];
  for (let v = target; v !== 0; v = from[v]) {
    const k = via[v];
    const t = g.edgeTypes[g.edgeType[k]];
    const edge = t === 'element' || t === 'hidden' ? `[${g.edgeName[k]}]` : g.strings[g.edgeName[k]];
    const cls = classOf(g, v);
    const closureName = g.nodeTypes[g.type[v]] === 'closure' ? ` ${g.strings[g.name[v]] || '(anonymous)'}` : '';
    // A suspended async function is a Generator object: say which function.
    const fn = cls === 'Generator' ? functionOf(g, v) : null;
    const generatorOf = fn ? ` of ${fn.name ? `${fn.name}()` : 'an anonymous function'}` : '';
    path.unshift({ edge, edgeType: t, node: `${cls}${closureName}${generatorOf}`, index: v });
  }
  return path;
}

/**
 * The `n` largest single objects by their own size (a long string, an
 * array's backing store), each with its class and, for a string, how it begins.
 * @returns {Array<{node:number, name:string, size:number, preview:string|null}>}
 */
function largestObjects(g, n = 5) {
  const top = [];
  for (let i = 1; i < g.count; i++) {
    if (top.length === n && g.size[i] <= top[n - 1].size) continue;
    top.push({ node: i, size: g.size[i] });
    top.sort((a, b) => b.size - a.size);
    if (top.length > n) top.pop();
  }
  return top.map(({ node, size }) => {
    const type = g.nodeTypes[g.type[node]];
    const preview = type.endsWith('string') ? g.strings[g.name[node]] : null;
    return { node, name: classOf(g, node), size, preview: preview === null ? null : preview.slice(0, 70) };
  });
}

function idsOf(g) {
  return new Set(g.id);
}

module.exports = { parseSnapshot, summarize, compareSummaries, retainerPath, idsOf, largestObjects, classOf, functionOf, awaitingGenerators };
