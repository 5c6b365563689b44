//! Differential test: `sort_like_libstdcxx` against GCC's own `std::sort` and heap sort,
//! compiled here from a ten-line C++ driver. Requires `g++` (installed by `.ci/run`).

use simpi_kernel::Rng;
use simpi_mpi::cxx_sort::sort_like_libstdcxx;
use std::io::Write;
use std::process::{Command, Stdio};

const DRIVER: &str = r#"
#include <algorithm>
#include <cstdio>
#include <vector>
struct E { int key; int id; };
int main() {
  int mode, n;
  while (std::scanf("%d %d", &mode, &n) == 2) {
    std::vector<E> v(n);
    for (int i = 0; i < n; ++i) { std::scanf("%d", &v[i].key); v[i].id = i; }
    auto less = [](const E& a, const E& b) { return a.key < b.key; };
    if (mode == 0) std::sort(v.begin(), v.end(), less);
    else std::partial_sort(v.begin(), v.end(), v.end(), less);
    for (int i = 0; i < n; ++i) std::printf("%d ", v[i].id);
    std::printf("\n");
  }
}
"#;

fn build_driver() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("simpi-cxxsort-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("driver.cpp");
    let exe = dir.join("driver");
    std::fs::write(&src, DRIVER).unwrap();
    let status = Command::new("g++")
        .args(["-O1", "-std=c++11", "-o"])
        .arg(&exe)
        .arg(&src)
        .status()
        .expect("g++ is needed for this test (apt-get install g++)");
    assert!(status.success(), "g++ failed to build the driver");
    exe
}

#[test]
fn permutes_equal_keys_exactly_like_gcc() {
    let exe = build_driver();
    let mut rng = Rng::new(2024);
    let mut cases: Vec<(u32, Vec<i32>)> = Vec::new();
    for _ in 0..400 {
        let n = match rng.below(4) {
            0 => rng.below(17),
            1 => 17 + rng.below(50),
            2 => 67 + rng.below(500),
            _ => 1000 + rng.below(4000),
        } as usize;
        let range = [3u64, 2, 10, 1000][rng.below(4) as usize];
        let keys: Vec<i32> = (0..n).map(|_| rng.below(range) as i32 + 1).collect();
        let mode = if rng.below(5) == 0 { 1 } else { 0 };
        cases.push((mode, keys));
    }
    let mut input = String::new();
    for (mode, keys) in &cases {
        input.push_str(&format!("{} {} ", mode, keys.len()));
        for k in keys {
            input.push_str(&format!("{k} "));
        }
        input.push('\n');
    }
    let mut child = Command::new(&exe)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    // Feed stdin from a thread so a full stdout pipe cannot deadlock us.
    let mut stdin = child.stdin.take().unwrap();
    let feeder = std::thread::spawn(move || stdin.write_all(input.as_bytes()).unwrap());
    let out = child.wait_with_output().unwrap();
    feeder.join().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), cases.len());
    for ((mode, keys), line) in cases.iter().zip(lines) {
        let want: Vec<usize> = line.split_whitespace().map(|t| t.parse().unwrap()).collect();
        let mut v: Vec<(i32, usize)> = keys.iter().copied().zip(0..).collect();
        if *mode == 0 {
            sort_like_libstdcxx(&mut v, |a, b| a.0 < b.0);
        } else {
            simpi_mpi::cxx_sort::heap_sort_like_libstdcxx(&mut v, |a, b| a.0 < b.0);
        }
        let got: Vec<usize> = v.iter().map(|x| x.1).collect();
        assert_eq!(got, want, "mode {mode}, n {}", keys.len());
    }
}
