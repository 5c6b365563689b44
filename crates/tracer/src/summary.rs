//! What a trace directory holds: per rank, how often each MPI function appears in the trace
//! and how often the program called it (the tracer's counters), and the calls that the trace
//! does not represent.

use crate::{io, Error, TRACED};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

/// One rank of a trace directory.
#[derive(Debug, Default)]
pub struct RankInfo {
    /// MPI function → number of trace lines standing for a call of it.
    pub in_trace: BTreeMap<String, u64>,
    /// MPI function → number of calls the program made (traced or not).
    pub called: BTreeMap<String, u64>,
    /// `compute` lines.
    pub computes: u64,
    /// Seconds of computation recorded.
    pub compute_seconds: f64,
    /// Whether the rank wrote its counts (it reached MPI_Finalize).
    pub finished: bool,
}

/// A whole trace directory.
#[derive(Debug)]
pub struct TraceDir {
    /// Ranks, in order.
    pub ranks: Vec<RankInfo>,
}

/// The MPI function a trace line stands for (`None` for lines that are not calls).
pub fn function_of(action: &str) -> Option<String> {
    let special = match action {
        "compute" | "sleep" | "comm_known" | "location" => return None,
        "init" => "MPI_Init",
        "ISsend" => "MPI_Issend",
        "sendRecv" => "MPI_Sendrecv",
        "reducescatter" => "MPI_Reduce_scatter",
        "ireducescatter" => "MPI_Ireduce_scatter",
        "reducescatterblock" => "MPI_Reduce_scatter_block",
        "ireducescatterblock" => "MPI_Ireduce_scatter_block",
        "waitAny" => "MPI_Waitany",
        _ => "",
    };
    if !special.is_empty() {
        return Some(special.to_string());
    }
    let mut c = action.chars();
    let first = c.next()?.to_ascii_uppercase();
    Some(format!("MPI_{first}{}", c.as_str()))
}

/// Calls that need no line in a trace: they move no data and take no simulated time.
pub fn is_local(f: &str) -> bool {
    const EXACT: &[&str] = &[
        "MPI_Comm_rank",
        "MPI_Comm_size",
        "MPI_Comm_group",
        "MPI_Comm_remote_size",
        "MPI_Comm_remote_group",
        "MPI_Comm_test_inter",
        "MPI_Comm_compare",
        "MPI_Wtime",
        "MPI_Wtick",
        "MPI_Initialized",
        "MPI_Finalized",
        "MPI_Query_thread",
        "MPI_Is_thread_main",
        "MPI_Abort",
        "MPI_Get_count",
        "MPI_Get_elements",
        "MPI_Get_elements_x",
        "MPI_Get_address",
        "MPI_Address",
        "MPI_Get_processor_name",
        "MPI_Get_version",
        "MPI_Get_library_version",
        "MPI_Pcontrol",
        "MPI_Dims_create",
        "MPI_Topo_test",
        "MPI_Cartdim_get",
        "MPI_Alloc_mem",
        "MPI_Free_mem",
        "MPI_Buffer_attach",
        "MPI_Buffer_detach",
        "MPI_Request_get_status",
    ];
    const PREFIXES: &[&str] = &[
        "MPI_Type_",
        "MPI_Group_",
        "MPI_Op_",
        "MPI_Error",
        "MPI_Errhandler_",
        "MPI_Comm_get_",
        "MPI_Comm_set_",
        "MPI_Comm_call_errhandler",
        "MPI_Comm_create_keyval",
        "MPI_Comm_free_keyval",
        "MPI_Comm_delete_attr",
        "MPI_Keyval_",
        "MPI_Attr_",
        "MPI_Info_",
        "MPI_Aint_",
        "MPI_Pack",
        "MPI_Unpack",
        "MPI_Cart_coords",
        "MPI_Cart_rank",
        "MPI_Cart_get",
        "MPI_Cart_shift",
        "MPI_Cart_map",
        "MPI_Graph_get",
        "MPI_Graph_neighbors",
        "MPI_Graphdims_get",
        "MPI_Dist_graph_neighbors",
        "MPI_Status_",
        "MPI_Comm_c2f",
        "MPI_Comm_f2c",
        "MPI_Request_c2f",
        "MPI_Request_f2c",
        "MPI_Add_error",
        "MPI_T_",
    ];
    EXACT.contains(&f) || PREFIXES.iter().any(|p| f.starts_with(p)) || f.ends_with("_c2f") || f.ends_with("_f2c")
}

fn read_text(p: &Path) -> Result<String, Error> {
    std::fs::read_to_string(p).map_err(io("read", p))
}

/// Reads a trace directory written by simpi's tracer.
pub fn read_dir(dir: &Path) -> Result<TraceDir, Error> {
    let index = dir.join("index.txt");
    let files: Vec<String> = std::fs::read_to_string(&index)
        .map_err(|error| Error::NoIndex {
            path: index.clone(),
            error,
        })?
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(String::from)
        .collect();
    let mut ranks = Vec::with_capacity(files.len());
    for (r, file) in files.iter().enumerate() {
        let mut info = RankInfo::default();
        let tit = dir.join(file);
        let times = read_text(&dir.join(format!("rank-{r}.times"))).unwrap_or_default();
        for (line_no, line) in read_text(&tit)?.lines().enumerate() {
            let mut w = line.split_whitespace();
            let Some(first) = w.next() else { continue };
            if first.starts_with('#') {
                continue;
            }
            let mut name = w.next().unwrap_or("");
            if name.starts_with('@') {
                name = w.next().unwrap_or("");
            }
            if name.is_empty() {
                return Err(Error::Format {
                    path: tit,
                    line: line_no + 1,
                    message: "a line without an action",
                });
            }
            if name == "compute" {
                info.computes += 1;
            }
            if let Some(f) = function_of(name) {
                *info.in_trace.entry(f).or_default() += 1;
            }
        }
        for line in times.lines() {
            let f: Vec<&str> = line.split_whitespace().collect();
            if f.len() == 3 && f[0] == "compute" {
                if let (Ok(a), Ok(b)) = (f[1].parse::<f64>(), f[2].parse::<f64>()) {
                    info.compute_seconds += b - a;
                }
            }
        }
        let counts = dir.join(format!("rank-{r}.counts"));
        if let Ok(text) = std::fs::read_to_string(&counts) {
            info.finished = true;
            for (i, line) in text.lines().enumerate() {
                let mut w = line.split_whitespace();
                let (Some(f), Some(n)) = (w.next(), w.next().and_then(|n| n.parse::<u64>().ok())) else {
                    return Err(Error::Format {
                        path: counts,
                        line: i + 1,
                        message: "expected 'MPI_Function count'",
                    });
                };
                info.called.insert(f.to_string(), n);
            }
        }
        // Both MPI_Init and MPI_Init_thread are written as `init`.
        if info.called.contains_key("MPI_Init_thread") && !info.called.contains_key("MPI_Init") {
            if let Some(n) = info.in_trace.remove("MPI_Init") {
                info.in_trace.insert("MPI_Init_thread".into(), n);
            }
        }
        ranks.push(info);
    }
    Ok(TraceDir { ranks })
}

/// Calls made but not represented in the trace, summed over ranks: function → (calls, ranks).
pub fn untraced(t: &TraceDir) -> BTreeMap<String, (u64, u64)> {
    let mut out: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    for r in &t.ranks {
        for (f, &n) in &r.called {
            if TRACED.contains(&f.as_str()) || is_local(f) {
                continue;
            }
            let e = out.entry(f.clone()).or_default();
            e.0 += n;
            e.1 += 1;
        }
    }
    out
}

/// A summary for people.
pub fn human(t: &TraceDir, dir: &Path) -> String {
    let mut s = String::new();
    let calls: u64 = t.ranks.iter().flat_map(|r| r.in_trace.values()).sum();
    let computes: u64 = t.ranks.iter().map(|r| r.computes).sum();
    let secs: f64 = t.ranks.iter().map(|r| r.compute_seconds).sum();
    let _ = writeln!(
        s,
        "simpi trace: {} ranks, {calls} MPI calls and {computes} computations ({secs:.6} s) traced in {}",
        t.ranks.len(),
        dir.join("index.txt").display()
    );
    let unfinished: Vec<usize> = (0..t.ranks.len()).filter(|&r| !t.ranks[r].finished).collect();
    if !unfinished.is_empty() {
        let _ = writeln!(
            s,
            "simpi trace: warning: {} rank(s) did not reach MPI_Finalize (first: {}); their traces end early",
            unfinished.len(),
            unfinished[0]
        );
    }
    let missing = untraced(t);
    if !missing.is_empty() {
        let _ = writeln!(
            s,
            "simpi trace: warning: calls the trace does not represent (counted, not replayed):"
        );
        for (f, (n, ranks)) in &missing {
            let _ = writeln!(s, "    {f}: {n} calls on {ranks} rank(s)");
        }
    }
    s
}

/// Per-rank counts as one line of JSON: `{"ranks": [{"rank": 0, "finished": true,
/// "computes": .., "compute_seconds": .., "in_trace": {..}, "called": {..}}, ..]}`.
pub fn json(t: &TraceDir) -> String {
    let map = |m: &BTreeMap<String, u64>| {
        let items: Vec<String> = m.iter().map(|(k, v)| format!("\"{k}\": {v}")).collect();
        format!("{{{}}}", items.join(", "))
    };
    let ranks: Vec<String> = t
        .ranks
        .iter()
        .enumerate()
        .map(|(r, i)| {
            format!(
                "{{\"rank\": {r}, \"finished\": {}, \"computes\": {}, \"compute_seconds\": {:e}, \"in_trace\": {}, \"called\": {}}}",
                i.finished,
                i.computes,
                i.compute_seconds,
                map(&i.in_trace),
                map(&i.called)
            )
        })
        .collect();
    format!("{{\"ranks\": [{}]}}", ranks.join(", "))
}

/// What `simpi trace-info` prints about the trace directory `dir`: the [`human`] summary,
/// or with `as_json` the [`json`] counts and a newline.
pub fn trace_info(dir: &Path, as_json: bool) -> Result<String, Error> {
    let t = read_dir(dir)?;
    Ok(if as_json {
        format!("{}\n", json(&t))
    } else {
        human(&t, dir)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trace_lines_name_their_functions() {
        assert_eq!(function_of("send").as_deref(), Some("MPI_Send"));
        assert_eq!(function_of("ISsend").as_deref(), Some("MPI_Issend"));
        assert_eq!(function_of("iallgatherv").as_deref(), Some("MPI_Iallgatherv"));
        assert_eq!(function_of("comm_split").as_deref(), Some("MPI_Comm_split"));
        assert_eq!(function_of("Start").as_deref(), Some("MPI_Start"));
        assert_eq!(
            function_of("reducescatterblock").as_deref(),
            Some("MPI_Reduce_scatter_block")
        );
        assert_eq!(function_of("compute"), None);
        // Every traced function has a line name that maps back to it.
        for f in TRACED {
            if *f == "MPI_Init_thread" {
                continue; // written as `init`, like MPI_Init
            }
            assert!(!is_local(f), "{f} is traced and cannot be local");
        }
    }
}
