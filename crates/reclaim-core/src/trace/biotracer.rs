//! Android `BIOtracer` traces: columns separated by tabs,
//! `sector nsectors bytes flags t1 t2 t3 t4`; sectors of 512 bytes; an odd `flags` is a write.

use super::{float, uint, ws_fields, Parsed, Request};

/// Parses one line.
pub fn parse(line: &str) -> Parsed<'_> {
    let (f, n) = ws_fields::<8>(line);
    if n != 8 {
        return Err("8 fields `sector nsectors bytes flags t1 t2 t3 t4`".to_string());
    }
    let sector = uint(Some(f[0]), "sector")?;
    let nsectors = uint(Some(f[1]), "nsectors")?;
    let bytes = uint(Some(f[2]), "bytes")?;
    let flags = uint(Some(f[3]), "flags")?;
    let t1 = float(Some(f[4]), "t1")?;
    if nsectors.checked_mul(512) != Some(bytes) {
        return Err("`bytes` = 512 × nsectors".to_string());
    }
    let offset = sector
        .checked_mul(512)
        .ok_or("a sector that fits in 64 bits")?;
    Ok(Some(Request {
        time: Some(t1),
        device: "",
        offset,
        len: bytes,
        write: flags % 2 == 1,
        trim: false,
    }))
}
