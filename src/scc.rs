//! Strongly connected components (iterative Tarjan), shared by the solver's cycle
//! elimination and the call graph walk of mod/ref.

const UNSEEN: u32 = u32::MAX;

/// Components of the graph `succ` over nodes `0..n`, visiting from `roots` in order.
/// Components come out sinks first (reverse topological order); deterministic for a
/// deterministic graph.
pub fn tarjan<'a>(
    n: usize,
    roots: impl Iterator<Item = u32>,
    succ: impl Fn(u32) -> &'a [u32],
) -> Vec<Vec<u32>> {
    let mut scratch = Scratch::default();
    let comps = scratch.run(n, roots, succ);
    comps.iter().map(|c| c.to_vec()).collect()
}

/// Tarjan's working arrays, kept between runs: the solver runs it every round over a
/// graph of many nodes of which few have edges, and clearing arrays of every node each
/// round made rounds cost the graph's size instead of what they visit.
#[derive(Default)]
pub struct Scratch {
    index: Vec<u32>,
    low: Vec<u32>,
    on_stack: Vec<bool>,
    visited: Vec<u32>,
    /// Components, flat, and where each ends.
    nodes: Vec<u32>,
    ends: Vec<usize>,
}

/// The components of one run, borrowed from its scratch.
pub struct Components<'s> {
    nodes: &'s [u32],
    ends: &'s [usize],
}

impl<'s> Components<'s> {
    pub fn iter(&self) -> impl Iterator<Item = &'s [u32]> + '_ {
        let nodes = self.nodes;
        self.ends.iter().scan(0, move |start, &end| {
            let c = &nodes[*start..end];
            *start = end;
            Some(c)
        })
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }
}

impl Scratch {
    /// As [`tarjan`], reusing this scratch's arrays; only the nodes visited are reset.
    pub fn run<'a>(
        &mut self,
        n: usize,
        roots: impl Iterator<Item = u32>,
        succ: impl Fn(u32) -> &'a [u32],
    ) -> Components<'_> {
        for &v in &self.visited {
            self.index[v as usize] = UNSEEN;
            self.on_stack[v as usize] = false;
        }
        self.visited.clear();
        if self.index.len() < n {
            self.index.resize(n, UNSEEN);
            self.low.resize(n, 0);
            self.on_stack.resize(n, false);
        }
        self.nodes.clear();
        self.ends.clear();
        let Scratch {
            index,
            low,
            on_stack,
            visited,
            nodes,
            ends,
        } = self;
        let (mut stack, mut next) = (Vec::new(), 0u32);
        let mut calls: Vec<(u32, usize)> = Vec::new();
        let mut visit = |v: u32,
                         index: &mut Vec<u32>,
                         low: &mut Vec<u32>,
                         stack: &mut Vec<u32>,
                         calls: &mut Vec<(u32, usize)>| {
            index[v as usize] = next;
            low[v as usize] = next;
            next += 1;
            visited.push(v);
            stack.push(v);
            calls.push((v, 0));
        };
        for root in roots {
            if index[root as usize] != UNSEEN {
                continue;
            }
            visit(root, index, low, &mut stack, &mut calls);
            on_stack[root as usize] = true;
            while let Some(&mut (v, ref mut i)) = calls.last_mut() {
                let s = succ(v);
                if *i < s.len() {
                    let w = s[*i];
                    *i += 1;
                    if index[w as usize] == UNSEEN {
                        visit(w, index, low, &mut stack, &mut calls);
                        on_stack[w as usize] = true;
                    } else if on_stack[w as usize] {
                        low[v as usize] = low[v as usize].min(index[w as usize]);
                    }
                    continue;
                }
                calls.pop();
                if let Some(&(u, _)) = calls.last() {
                    low[u as usize] = low[u as usize].min(low[v as usize]);
                }
                if low[v as usize] == index[v as usize] {
                    loop {
                        let w = stack.pop().unwrap();
                        on_stack[w as usize] = false;
                        nodes.push(w);
                        if w == v {
                            break;
                        }
                    }
                    ends.push(nodes.len());
                }
            }
        }
        Components { nodes, ends }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn components_come_sinks_first() {
        // 0 -> 1 -> 2 -> 1, 0 -> 3
        let g: Vec<Vec<u32>> = vec![vec![1, 3], vec![2], vec![1], vec![]];
        let c = tarjan(4, 0..4, |v| &g[v as usize]);
        let pos = |f: u32| c.iter().position(|c| c.contains(&f)).unwrap();
        assert_eq!(c.len(), 3);
        assert_eq!(pos(1), pos(2));
        assert!(pos(1) < pos(0) && pos(3) < pos(0));
    }

    #[test]
    fn scratch_runs_equal_fresh_runs() {
        // A reused scratch must forget the previous run: the same graph twice, then a
        // smaller one, give what fresh runs give.
        let g: Vec<Vec<u32>> = vec![vec![1, 3], vec![2], vec![1], vec![0]];
        let h: Vec<Vec<u32>> = vec![vec![1], vec![0], vec![]];
        let mut sc = Scratch::default();
        for (n, graph) in [(4, &g), (4, &g), (3, &h)] {
            let fresh = tarjan(n, 0..n as u32, |v| &graph[v as usize]);
            let again: Vec<Vec<u32>> = sc
                .run(n, 0..n as u32, |v| &graph[v as usize])
                .iter()
                .map(|c| c.to_vec())
                .collect();
            assert_eq!(again, fresh);
        }
        // g: 0 -> 3 -> 0 and 1 <-> 2: one component {0, 3}, one {1, 2}.
        assert_eq!(tarjan(4, 0..4, |v| &g[v as usize]).len(), 2);
    }
}
