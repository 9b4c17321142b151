//! Android `BIOtracer` traces: columns separated by tabs,
//! `sector nsectors bytes flags t1 t2 t3 t4`; sectors of 512 bytes; an odd `flags` is a write.

use super::{float, uint, Parsed, Request};

/// Parses one line.
pub fn parse(line: &str) -> Parsed<'_> {
    let f: Vec<&str> = line.split_ascii_whitespace().collect();
    if f.len() != 8 {
        return Err(format!("8 fields `sector nsectors bytes flags t1 t2 t3 t4`, got {}", f.len()));
    }
    let sector = uint(Some(f[0]), "sector")?;
    let nsectors = uint(Some(f[1]), "nsectors")?;
    let bytes = uint(Some(f[2]), "bytes")?;
    let flags = uint(Some(f[3]), "flags")?;
    let t1 = float(Some(f[4]), "t1")?;
    if bytes != nsectors * 512 {
        return Err(format!("`bytes` = 512 × nsectors ({}), got {bytes}", nsectors * 512));
    }
    Ok(Some(Request { time: Some(t1), device: "", offset: sector * 512, len: bytes, write: flags % 2 == 1 }))
}
