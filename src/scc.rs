//! Strongly connected components (iterative Tarjan), shared by the solver's cycle
//! elimination and the call graph walk of mod/ref.

const UNSEEN: u32 = u32::MAX;

/// Components of the graph `succ` over nodes `0..n`, visiting from `roots` in order.
/// Components come out sinks first (reverse topological order); deterministic for a
/// deterministic graph.
pub fn tarjan<'a>(n: usize, roots: impl Iterator<Item = u32>, succ: impl Fn(u32) -> &'a [u32]) -> Vec<Vec<u32>> {
    let mut index = vec![UNSEEN; n];
    let mut low = vec![0u32; n];
    let mut on_stack = vec![false; n];
    let (mut stack, mut out, mut next) = (Vec::new(), Vec::new(), 0u32);
    let mut calls: Vec<(u32, usize)> = Vec::new();
    let mut visit = |v: u32, index: &mut Vec<u32>, low: &mut Vec<u32>, stack: &mut Vec<u32>, calls: &mut Vec<(u32, usize)>| {
        index[v as usize] = next;
        low[v as usize] = next;
        next += 1;
        stack.push(v);
        calls.push((v, 0));
    };
    for root in roots {
        if index[root as usize] != UNSEEN {
            continue;
        }
        visit(root, &mut index, &mut low, &mut stack, &mut calls);
        on_stack[root as usize] = true;
        while let Some(&mut (v, ref mut i)) = calls.last_mut() {
            let s = succ(v);
            if *i < s.len() {
                let w = s[*i];
                *i += 1;
                if index[w as usize] == UNSEEN {
                    visit(w, &mut index, &mut low, &mut stack, &mut calls);
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
                let mut comp = Vec::new();
                loop {
                    let w = stack.pop().unwrap();
                    on_stack[w as usize] = false;
                    comp.push(w);
                    if w == v {
                        break;
                    }
                }
                out.push(comp);
            }
        }
    }
    out
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
}
