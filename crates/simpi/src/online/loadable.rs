//! A program's file, checked and made loadable into this process as a library (ranks
//! as coroutines, `--in-process`).
//!
//! A position-independent executable loads like a library once the C library's
//! refusal to `dlopen` executables (the `DF_1_PIE` flag) is cleared in a copy. What
//! cannot work in a library is refused with the reason: a program linked at a fixed
//! address, thread-local variables of the program's own (an executable reaches them
//! at offsets only the main program has), and copy relocations (code compiled
//! without `-fPIC` keeps its own copies of the C library's variables such as `optarg`
//! and `environ`, filled once at load time and never updated).

use object::elf;
use object::read::elf::{Dyn, ElfFile64, FileHeader, ProgramHeader};
use object::{Endianness, Object, ObjectSymbol, RelocationFlags};
use std::path::Path;

/// A program's file, ready to be loaded as a library.
pub struct Image {
    /// The file's bytes, `DF_1_PIE` cleared.
    pub bytes: Vec<u8>,
    /// `main`'s address in the file, for a program that does not export it
    /// (`dlsym` finds it otherwise).
    pub main: Option<u64>,
}

/// This machine's ELF machine number and its copy relocation's type.
fn host() -> (u16, u32) {
    if cfg!(target_arch = "aarch64") {
        (elf::EM_AARCH64, elf::R_AARCH64_COPY)
    } else {
        (elf::EM_X86_64, elf::R_X86_64_COPY)
    }
}

/// Reads `path` and makes it loadable, or says why it cannot be.
pub fn prepare(path: &Path) -> Result<Image, String> {
    let name = path.display();
    let mut bytes = std::fs::read(path).map_err(|e| format!("cannot read {name}: {e}"))?;
    let flags_at = check(&bytes)
        .map_err(|e| format!("{name} cannot run in simpi's process ({e}): run it without --in-process"))?;
    let main = main_address(&bytes);
    if let Some((at, value)) = flags_at {
        // The tag's value is the entry's second half (d_val), little-endian here.
        let cleared = value & !u64::from(elf::DF_1_PIE);
        bytes[at + 8..at + 16].copy_from_slice(&cleared.to_le_bytes());
    }
    Ok(Image { bytes, main })
}

/// Checks that `data` is a position-independent executable of this machine that can
/// be a library; where its `DT_FLAGS_1` entry lies in the file, and its value.
fn check(data: &[u8]) -> Result<Option<(usize, u64)>, String> {
    let file = ElfFile64::<Endianness>::parse(data).map_err(|e| format!("not a 64-bit ELF file: {e}"))?;
    let endian = file.endian();
    if endian != Endianness::Little {
        return Err("a big-endian file".into());
    }
    let header = file.elf_header();
    let (machine, copy) = host();
    if header.e_machine(endian) != machine {
        return Err("built for another kind of processor".into());
    }
    if header.e_type(endian) != elf::ET_DYN {
        return Err("not position-independent: linked at a fixed address (-no-pie or -static)".into());
    }
    let mut flags_at = None;
    for ph in file.elf_program_headers() {
        if ph.p_type(endian) == elf::PT_TLS {
            return Err("it has thread-local variables of its own".into());
        }
        let Some(entries) = ph
            .dynamic(endian, data)
            .map_err(|e| format!("its dynamic section: {e}"))?
        else {
            continue;
        };
        for entry in entries {
            if entry.d_tag(endian) == u64::from(elf::DT_FLAGS_1) {
                let at = entry as *const _ as usize - data.as_ptr() as usize;
                flags_at = Some((at, entry.d_val(endian)));
            }
        }
    }
    let copies = file
        .dynamic_relocations()
        .into_iter()
        .flatten()
        .any(|(_, r)| matches!(r.flags(), RelocationFlags::Elf { r_type } if r_type == copy));
    if copies {
        return Err(
            "it copies the C library's variables at load time: it was compiled without -fPIC (rebuild it with simpicc, simpicxx, simpif90 or simpif77)"
                .into(),
        );
    }
    Ok(flags_at)
}

/// `main`'s address in the file, from its symbol table (or its dynamic one).
fn main_address(data: &[u8]) -> Option<u64> {
    let file = ElfFile64::<Endianness>::parse(data).ok()?;
    file.symbols()
        .chain(file.dynamic_symbols())
        .find(|s| s.is_definition() && s.name() == Ok("main"))
        .map(|s| s.address())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_not_an_executable_of_this_machine_is_refused_with_the_reason() {
        let dir = std::env::temp_dir().join(format!("simpi-loadable-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let text = dir.join("text");
        std::fs::write(&text, "#!/bin/sh\necho hi\n").unwrap();
        let e = prepare(&text).err().unwrap();
        assert!(
            e.contains("not a 64-bit ELF file") && e.contains("without --in-process"),
            "{e}"
        );
        let missing = prepare(&dir.join("missing")).err().unwrap();
        assert!(missing.starts_with("cannot read"), "{missing}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
