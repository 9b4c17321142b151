//! FIU `SRCMap` traces (Verma et al.): `ts_ns pid process lba size W|R major minor md5`, lba and
//! size in 512-byte sectors. The device is `major,minor`.

use super::{uint, ws_fields, Parsed, Request};

/// Parses one line.
pub fn parse(line: &str) -> Parsed<'_> {
    let (f, n) = ws_fields::<9>(line);
    if n != 9 {
        return Err("9 fields `ts_ns pid process lba size W|R major minor md5`".to_string());
    }
    let ts = uint(Some(f[0]), "ts_ns")?;
    let lba = uint(Some(f[3]), "lba")?;
    let size = uint(Some(f[4]), "size")?;
    let write = match f[5] {
        "W" | "w" => true,
        "R" | "r" => false,
        _ => return Err("`W` or `R` (unknown opcode)".to_string()),
    };
    uint(Some(f[6]), "major")?;
    uint(Some(f[7]), "minor")?;
    let start = f[6].as_ptr() as usize - line.as_ptr() as usize;
    let end = f[7].as_ptr() as usize - line.as_ptr() as usize + f[7].len();
    let device = &line[start..end];
    Ok(Some(Request {
        time: Some(ts as f64 * 1e-9),
        device,
        offset: lba.checked_mul(512).ok_or("an lba that fits in 64 bits")?,
        len: size.checked_mul(512).ok_or("a size that fits in 64 bits")?,
        write,
        trim: false,
    }))
}
