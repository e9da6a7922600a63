use pspa::{analysis, facts::Program};
#[test]
fn scratch() {
    let prog = Program::from_file(std::path::Path::new("cache/sqlite/shell.bc"), &Default::default()).unwrap();
    let a = analysis::analyze(&prog);
    let s = &a.solver;
    let o = s.objs.iter().position(|ob| ob.label == "global:.str.1000").unwrap();
    let base = s.objs[o].base;
    let r = s.find_ro(base);
    println!("readonly {} base {} rep {} fi {}", s.objs[o].readonly, base, r, s.is_fi(o as u32));
    let mut members = vec![];
    for n in 0..s.num_nodes() as u32 { if s.find_ro(n) == r { members.push(n); } }
    println!("class size {}", members.len());
    for &n in members.iter().take(40) {
        let ob = s.obj_of(n);
        if ob == u32::MAX { println!("  var {}", prog.var_name(n)); } else { println!("  loc {}", a.label(n)); }
    }
}
#[test]
fn names() {
    let prog = Program::from_file(std::path::Path::new("tests/pspa/deep.c"), &Default::default()).unwrap();
    for l in &prog.layouts { println!("{}", l.name); }
}
