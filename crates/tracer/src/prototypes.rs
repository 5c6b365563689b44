//! Reads the MPI function prototypes of a preprocessed `mpi.h` and writes the C that counts
//! every call the tracer does not trace itself: a pass-through wrapper per function.

/// One parameter: its declaration with a name, and the name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    /// The declaration, e.g. `const int counts[]`.
    pub decl: String,
    /// The name passed on to PMPI.
    pub name: String,
}

/// One `MPI_` function declared in the header (with its `PMPI_` twin).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Prototype {
    /// Return type, e.g. `int` or `double`.
    pub ret: String,
    /// Function name, e.g. `MPI_Send`.
    pub name: String,
    /// Fixed parameters.
    pub params: Vec<Param>,
    /// Whether the list ends with `...`.
    pub varargs: bool,
}

const BUILTIN_TYPES: &[&str] = &[
    "void", "char", "short", "int", "long", "float", "double", "signed", "unsigned",
];
const QUALIFIERS: &[&str] = &["const", "volatile", "restrict", "__restrict", "struct", "enum", "union"];

/// Removes `__attribute__((...))`, `__extension__` and `__asm__(...)` so that declarations
/// of every MPI library look alike.
fn strip_attributes(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let rest = &text[i..];
        let word = ["__attribute__", "__asm__", "__asm"]
            .into_iter()
            .find(|w| rest.starts_with(w) && !is_ident(*b.get(i + w.len()).unwrap_or(&b' ')));
        if let Some(w) = word {
            // Skip the word and one balanced parenthesised group after it.
            let mut j = i + w.len();
            while j < b.len() && b[j].is_ascii_whitespace() {
                j += 1;
            }
            if j < b.len() && b[j] == b'(' {
                let mut depth = 0;
                while j < b.len() {
                    match b[j] {
                        b'(' => depth += 1,
                        b')' => {
                            depth -= 1;
                            if depth == 0 {
                                j += 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                    j += 1;
                }
            }
            out.push(' ');
            i = j;
        } else if rest.starts_with("__extension__") {
            i += "__extension__".len();
        } else {
            let c = rest.chars().next().unwrap();
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

fn identifiers(s: &str) -> Vec<&str> {
    s.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty() && !w.as_bytes()[0].is_ascii_digit())
        .collect()
}

/// Splits `s` at commas outside parentheses and brackets.
fn split_top(s: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in s.char_indices() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&s[start..]);
    parts
}

/// Names an unnamed parameter `a<index>`; returns the declaration and the name.
fn param(raw: &str, index: usize) -> Option<Param> {
    let decl = raw.split_whitespace().collect::<Vec<_>>().join(" ");
    if decl.contains('(') {
        return None; // a function-pointer parameter written out: not in MPI headers
    }
    let ids: Vec<&str> = identifiers(&decl)
        .into_iter()
        .filter(|w| !QUALIFIERS.contains(w))
        .collect();
    let last = *ids.last()?;
    if ids.len() >= 2 && !BUILTIN_TYPES.contains(&last) {
        return Some(Param {
            decl: decl.clone(),
            name: last.to_string(),
        });
    }
    let name = format!("a{index}");
    let decl = match decl.find('[') {
        Some(at) => format!("{} {name}{}", decl[..at].trim_end(), &decl[at..]),
        None => format!("{decl} {name}"),
    };
    Some(Param { decl, name })
}

/// Every `MPI_` function of a preprocessed header that has a `PMPI_` twin, in header order.
pub fn parse_prototypes(preprocessed: &str) -> Vec<Prototype> {
    let text = strip_attributes(preprocessed);
    let mut found = Vec::new();
    let mut pmpi = std::collections::HashSet::new();
    // Declarations end at top-level semicolons; braces (struct bodies) are skipped.
    let mut depth = 0i32;
    let mut start = 0;
    let mut decls = Vec::new();
    for (i, c) in text.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    start = i + 1;
                }
            }
            ';' if depth == 0 => {
                decls.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    for d in decls {
        let d = d.trim();
        if d.starts_with("typedef") || d.starts_with('#') {
            continue;
        }
        let Some(open) = d.find('(') else { continue };
        let head = d[..open].trim_end();
        let name_start = head
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .map_or(0, |p| p + 1);
        let name = &head[name_start..];
        let ret = head[..name_start]
            .split_whitespace()
            .filter(|w| !matches!(*w, "extern" | "static" | "inline"))
            .collect::<Vec<_>>()
            .join(" ");
        if ret.is_empty() || ret.contains('(') {
            continue;
        }
        let Some(close) = d.rfind(')') else { continue };
        if close < open || !d[close + 1..].trim().is_empty() {
            continue;
        }
        if let Some(base) = name.strip_prefix("PMPI_") {
            pmpi.insert(base.to_string());
            continue;
        }
        if !name.starts_with("MPI_") {
            continue;
        }
        let inner = d[open + 1..close].trim();
        let mut params = Vec::new();
        let mut varargs = false;
        let mut ok = true;
        if !(inner.is_empty() || inner == "void") {
            for (k, raw) in split_top(inner).into_iter().enumerate() {
                if raw.trim() == "..." {
                    varargs = true;
                } else if let Some(p) = param(raw, k) {
                    params.push(p);
                } else {
                    ok = false;
                }
            }
        }
        if ok {
            found.push(Prototype {
                ret: ret.replace(" *", "*"),
                name: name.to_string(),
                params,
                varargs,
            });
        }
    }
    found.retain(|p| pmpi.contains(&p.name["MPI_".len()..]));
    let mut seen = std::collections::HashSet::new();
    found.retain(|p| seen.insert(p.name.clone()));
    found
}

/// The generated C: `simpi_fns.h` (an id per function and the name table's declaration) and
/// `simpi_wrappers.c` (the name table and a counting wrapper for every function not in
/// `traced`, forwarding through `NEXT`, i.e. to PMPI or, when chaining, to the next tracer).
pub fn generate(protos: &[Prototype], traced: &[&str]) -> (String, String) {
    let mut h = String::from(
        "/* Generated by simpi from this MPI's mpi.h. */\n#ifndef SIMPI_FNS_H\n#define SIMPI_FNS_H\nenum simpi_fn {\n",
    );
    for p in protos {
        h += &format!("    SIMPI_FN_{},\n", p.name);
    }
    h += "    SIMPI_FN_COUNT\n};\nextern const char *const simpi_fn_names[];\n";
    // NEXT(MPI_X): PMPI_X, or with chaining the next MPI_X in the preload order
    // (simpi_next in simpi_trace.c), looked up on the first call and kept.
    h += "void *simpi_next(const char *name, void *pmpi);\n\
         #define NEXT(fn) (*({ static __typeof__(&P##fn) next_; \\\n\
         __typeof__(&P##fn) f_ = __atomic_load_n(&next_, __ATOMIC_ACQUIRE); \\\n\
         if (!f_) { f_ = (__typeof__(&P##fn))simpi_next(#fn, (void *)&P##fn); \\\n\
         __atomic_store_n(&next_, f_, __ATOMIC_RELEASE); } \\\n\
         f_; }))\n#endif\n";
    let mut c = String::from(
        "/* Generated by simpi from this MPI's mpi.h: count every call the tracer does not trace. */\n\
         #include <mpi.h>\n#include \"simpi_fns.h\"\n\
         extern unsigned long long simpi_calls[];\nextern int simpi_depth;\n\
         const char *const simpi_fn_names[] = {\n",
    );
    for p in protos {
        c += &format!("    \"{}\",\n", p.name);
    }
    c += "};\n";
    for p in protos.iter().filter(|p| !traced.contains(&p.name.as_str())) {
        let decls: Vec<&str> = p.params.iter().map(|q| q.decl.as_str()).collect();
        let mut list = decls.join(", ");
        if p.varargs {
            list += if list.is_empty() { "..." } else { ", ..." };
        }
        if list.is_empty() {
            list = "void".into();
        }
        let args: Vec<&str> = p.params.iter().map(|q| q.name.as_str()).collect();
        let call = format!("NEXT({})({})", p.name, args.join(", "));
        let count = format!("    if (simpi_depth++ == 0) simpi_calls[SIMPI_FN_{}]++;\n", p.name);
        if p.ret == "void" {
            c += &format!(
                "void {}({list}) {{\n{count}    {call};\n    simpi_depth--;\n}}\n",
                p.name
            );
        } else {
            c += &format!(
                "{} {}({list}) {{\n{count}    {} r_ = {call};\n    simpi_depth--;\n    return r_;\n}}\n",
                p.ret, p.name, p.ret
            );
        }
    }
    (h, c)
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = r#"
typedef struct ompi_status_public_t { int MPI_SOURCE; int MPI_TAG; } MPI_Status;
typedef int (MPI_Copy_function)(int, int, void *, void *, void *, int *);
__attribute__((visibility("default"))) int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest,
                            int tag, MPI_Comm comm);
__attribute__((visibility("default"))) int PMPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest,
                            int tag, MPI_Comm comm);
__attribute__((visibility("default"))) double MPI_Wtime(void);
__attribute__((visibility("default"))) double PMPI_Wtime(void);
__attribute__((visibility("default"))) int MPI_Pcontrol(const int level, ...);
__attribute__((visibility("default"))) int PMPI_Pcontrol(const int level, ...);
int MPI_Waitall(int, MPI_Request [], MPI_Status *) __attribute__((deprecated("x")));
int PMPI_Waitall(int, MPI_Request [], MPI_Status *);
int MPI_Only_here(int x);
MPI_Comm MPI_Comm_f2c(int comm);
MPI_Comm PMPI_Comm_f2c(int comm);
"#;

    #[test]
    fn prototypes_of_both_header_styles() {
        let p = parse_prototypes(HEADER);
        let names: Vec<&str> = p.iter().map(|p| p.name.as_str()).collect();
        // MPI_Only_here has no PMPI twin: no wrapper could forward it.
        assert_eq!(
            names,
            ["MPI_Send", "MPI_Wtime", "MPI_Pcontrol", "MPI_Waitall", "MPI_Comm_f2c"]
        );
        assert_eq!(p[0].params.len(), 6);
        assert_eq!(p[0].params[5].name, "comm");
        assert_eq!(p[1].ret, "double");
        assert!(p[1].params.is_empty());
        assert!(p[2].varargs);
        assert_eq!(p[3].params[0].decl, "int a0");
        assert_eq!(p[3].params[1].decl, "MPI_Request a1[]");
        assert_eq!(p[3].params[2].decl, "MPI_Status * a2");
        assert_eq!(p[4].ret, "MPI_Comm");
    }

    #[test]
    fn wrappers_count_and_forward() {
        let p = parse_prototypes(HEADER);
        let (h, c) = generate(&p, &["MPI_Send"]);
        assert!(h.contains("SIMPI_FN_MPI_Send,"));
        assert!(h.contains("SIMPI_FN_COUNT"));
        assert!(!c.contains("int MPI_Send("), "traced functions are not wrapped twice");
        assert!(c.contains("double MPI_Wtime(void) {"));
        assert!(c.contains("double r_ = NEXT(MPI_Wtime)();"));
        assert!(c.contains("int MPI_Pcontrol(const int level, ...) {"));
        assert!(c.contains("NEXT(MPI_Pcontrol)(level)"));
        assert!(c.contains("NEXT(MPI_Waitall)(a0, a1, a2)"));
        assert!(h.contains("#define NEXT(fn)"));
    }
}
